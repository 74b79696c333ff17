//! TLS and mutual TLS over a real socket, with certificates made here by
//! rcgen: a test CA, a server certificate for `localhost` and client
//! certificates from that CA and from a stranger's.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use tafl::service::pb;
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tafl::service::{Config, ExecConfig, ServeError, Server, TlsConfig, TransportConfig};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

/// A certificate and its key, PEM.
struct Pem {
    cert: String,
    key: String,
}

/// A CA that signs server and client certificates.
struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl TestCa {
    fn new(name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        TestCa { issuer }
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }

    fn sign(&self, names: &[&str], usage: ExtendedKeyUsagePurpose) -> Pem {
        let mut params = CertificateParams::new(
            names
                .iter()
                .map(|name| (*name).to_owned())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        params.distinguished_name.push(
            DnType::CommonName,
            names.first().copied().unwrap_or("client"),
        );
        params.extended_key_usages = vec![usage];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Pem {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    }
}

/// A fresh directory for one test's files.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tafl-tls-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// A server on port 0 serving `server` (signed by `ca`); with `client_ca`, mutual TLS.
async fn start(test: &str, ca: &TestCa, client_ca: Option<&TestCa>) -> (Server, Pem) {
    let dir = temp_dir(test);
    let server_pem = ca.sign(&["localhost"], ExtendedKeyUsagePurpose::ServerAuth);
    let config = Config {
        transport: TransportConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls: TlsConfig {
                cert: Some(write(&dir, "server.pem", &server_pem.cert)),
                key: Some(write(&dir, "server.key", &server_pem.key)),
                client_ca: client_ca
                    .map(|client_ca| write(&dir, "client-ca.pem", &client_ca.pem())),
            },
            ..TransportConfig::default()
        },
        exec: ExecConfig {
            search_threads: 1,
            hash_mb: 1,
            ..ExecConfig::default()
        },
        ..Config::default()
    };
    // The key's path may show in Debug output; the key never does.
    assert!(!format!("{config:?}").contains("PRIVATE KEY"));
    let server = Server::start(config)
        .await
        .expect("the server starts with TLS");
    (server, server_pem)
}

/// A TLS client trusting `ca` for `localhost`, presenting `identity` if given.
async fn connect(
    addr: SocketAddr,
    ca: &TestCa,
    identity: Option<&Pem>,
) -> Result<TaflServiceClient<Channel>, tonic::transport::Error> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca.pem()))
        .domain_name("localhost");
    if let Some(identity) = identity {
        tls = tls.identity(Identity::from_pem(&identity.cert, &identity.key));
    }
    let channel = Channel::from_shared(format!("https://{addr}"))
        .unwrap()
        .tls_config(tls)?
        .connect()
        .await?;
    Ok(TaflServiceClient::new(channel))
}

/// Whether a cheap call through this client succeeds (with the right answer).
async fn call_works(client: Result<TaflServiceClient<Channel>, tonic::transport::Error>) -> bool {
    let Ok(mut client) = client else {
        return false;
    };
    match client.legal_moves(pb::LegalMovesRequest::default()).await {
        Ok(reply) => {
            assert_eq!(reply.into_inner().moves.len(), 116);
            true
        }
        Err(_) => false,
    }
}

#[tokio::test]
async fn tls_serves_clients_that_trust_its_ca_and_refuses_plaintext() {
    let ca = TestCa::new("tafl test CA");
    let (server, _) = start("tls", &ca, None).await;
    let addr = server.local_addr();

    assert!(call_works(connect(addr, &ca, None).await).await);

    // A client that does not trust the server's CA refuses the server.
    let stranger_ca = TestCa::new("someone else's CA");
    assert!(!call_works(connect(addr, &stranger_ca, None).await).await);

    // A plaintext client gets nowhere.
    let plaintext = TaflServiceClient::connect(format!("http://{addr}")).await;
    assert!(!call_works(plaintext).await);

    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn mutual_tls_serves_only_clients_with_a_certificate_from_its_client_ca() {
    let ca = TestCa::new("tafl test CA");
    let client_ca = TestCa::new("tafl clients CA");
    let (server, _) = start("mtls", &ca, Some(&client_ca)).await;
    let addr = server.local_addr();

    let backend = client_ca.sign(&["game-backend"], ExtendedKeyUsagePurpose::ClientAuth);
    assert!(call_works(connect(addr, &ca, Some(&backend)).await).await);

    // No certificate: refused.
    assert!(!call_works(connect(addr, &ca, None).await).await);

    // A certificate from another CA: refused.
    let stranger =
        TestCa::new("someone else's CA").sign(&["intruder"], ExtendedKeyUsagePurpose::ClientAuth);
    assert!(!call_works(connect(addr, &ca, Some(&stranger)).await).await);

    // The refusals left the server answering.
    assert!(call_works(connect(addr, &ca, Some(&backend)).await).await);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn unreadable_or_broken_tls_files_stop_the_start() {
    let dir = temp_dir("broken");
    let missing = Config {
        transport: TransportConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls: TlsConfig {
                cert: Some(dir.join("missing.pem")),
                key: Some(dir.join("missing.key")),
                client_ca: None,
            },
            ..TransportConfig::default()
        },
        ..Config::default()
    };
    let error = Server::start(missing)
        .await
        .expect_err("no certificate file");
    assert!(matches!(error, ServeError::TlsFile(_)), "{error}");
    assert!(error.to_string().contains("missing.pem"), "{error}");

    let garbage = Config {
        transport: TransportConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls: TlsConfig {
                cert: Some(write(&dir, "garbage.pem", "not a certificate")),
                key: Some(write(&dir, "garbage.key", "not a key")),
                client_ca: None,
            },
            ..TransportConfig::default()
        },
        ..Config::default()
    };
    assert!(Server::start(garbage).await.is_err());
}
