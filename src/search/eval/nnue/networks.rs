//! The networks an engine plays with, one per variant at most: by default the
//! ones built into the binary, each chosen by the variant of the game.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::format::{NetworkFileError, NetworkFileErrorKind};
use super::network::Network;
use crate::rules::{BoardSize, Rules, Variant};

/// A built-in network: its variant, its file under `nets/` (named by the variant), its bytes.
macro_rules! built_in {
    ($rules:ident, $size:ident, $file:literal) => {
        (
            Variant::new(Rules::$rules, BoardSize::$size),
            $file,
            include_bytes!(concat!("nets/", $file)) as &[u8],
        )
    };
}

/// The networks built into the binary: each variant's latest kept generation (docs/ai.md,
/// "Generations"). Every other variant plays with the classic evaluation.
const BUILT_IN: &[(Variant, &str, &[u8])] = &[
    built_in!(Copenhagen, Eleven, "copenhagen-11x11.nnue"),
    built_in!(Copenhagen, Thirteen, "copenhagen-13x13.nnue"),
    built_in!(Fetlar, Eleven, "fetlar-11x11.nnue"),
    built_in!(Tablut, Nine, "tablut-9x9.nnue"),
];

/// At most one network per variant. `Networks::default()` holds none: the classic evaluation
/// everywhere.
///
/// ```
/// use tafl::rules::{Rules, Variant};
/// use tafl::search::Networks;
///
/// let built_in = Networks::built_in();
/// let network = built_in.get(Variant::standard(Rules::Copenhagen)).expect("built in");
/// assert_eq!(network.variant(), Variant::standard(Rules::Copenhagen));
/// assert!(Networks::default().get(Variant::standard(Rules::Copenhagen)).is_none());
/// ```
#[derive(Clone, Default)]
pub struct Networks(Vec<Arc<Network>>);

impl Networks {
    /// The networks built into the binary, read once.
    ///
    /// # Panics
    /// Never: a test reads every built-in file.
    #[must_use]
    pub fn built_in() -> Networks {
        static BUILT: OnceLock<Networks> = OnceLock::new();
        BUILT
            .get_or_init(|| {
                BUILT_IN
                    .iter()
                    .map(|(_, _, bytes)| {
                        Arc::new(Network::from_bytes(bytes).expect("a built-in network is valid"))
                    })
                    .collect()
            })
            .clone()
    }

    /// The built-in networks, each replaced by the file given for its variant (a file may name
    /// a variant without a built-in network): what `tafl serve --eval-net` plays with.
    ///
    /// # Errors
    /// [`NetworkFileError`] naming the first file that cannot be read or is refused, or the
    /// second file for one variant.
    pub fn built_in_replaced_by(files: &[PathBuf]) -> Result<Networks, NetworkFileError> {
        let mut networks = Networks::built_in();
        let mut given: Vec<(Variant, &Path)> = Vec::new();
        for path in files {
            let network = Network::read_file(path)?;
            let variant = network.variant();
            if let Some(&(_, first)) = given.iter().find(|(seen, _)| *seen == variant) {
                return Err(NetworkFileError {
                    path: path.clone(),
                    kind: NetworkFileErrorKind::SecondForVariant {
                        variant,
                        first: first.to_path_buf(),
                    },
                });
            }
            given.push((variant, path));
            networks.insert(Arc::new(network));
        }
        Ok(networks)
    }

    /// The network for `variant`, if there is one.
    #[must_use]
    pub fn get(&self, variant: Variant) -> Option<&Arc<Network>> {
        self.0.iter().find(|network| network.variant() == variant)
    }

    /// Plays `network` on its variant from now on, returning the one it replaces.
    pub fn insert(&mut self, network: Arc<Network>) -> Option<Arc<Network>> {
        match self
            .0
            .iter_mut()
            .find(|held| held.variant() == network.variant())
        {
            Some(held) => Some(std::mem::replace(held, network)),
            None => {
                self.0.push(network);
                None
            }
        }
    }

    /// Every network held, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Network>> {
        self.0.iter()
    }
}

/// Later networks replace earlier ones of the same variant.
impl FromIterator<Arc<Network>> for Networks {
    fn from_iter<I: IntoIterator<Item = Arc<Network>>>(networks: I) -> Networks {
        let mut set = Networks::default();
        for network in networks {
            set.insert(network);
        }
        set
    }
}

impl fmt::Debug for Networks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|network| {
                format!(
                    "{} generation {}",
                    network.variant(),
                    network.provenance.generation
                )
            }))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Provenance;
    use crate::search::eval::nnue::FeatureSet;

    fn provenance() -> Provenance {
        Provenance {
            generation: 4,
            validation_loss: 0.5,
            text: "test".into(),
        }
    }

    /// Each built-in file is a network of the variant it is built in for, named by that variant.
    #[test]
    fn every_built_in_network_is_of_the_variant_that_loads_it() {
        for &(variant, file, bytes) in BUILT_IN {
            let network = Network::from_bytes(bytes).expect("a valid built-in network");
            assert_eq!(network.variant(), variant, "{file}");
            let size = variant.size.get();
            assert_eq!(
                file,
                format!("{}-{size}x{size}.nnue", variant.rules),
                "{file}"
            );
            let loaded = Networks::built_in();
            assert_eq!(loaded.get(variant).map(|n| n.variant()), Some(variant));
        }
        assert_eq!(Networks::built_in().iter().count(), BUILT_IN.len());
    }

    #[test]
    fn a_file_replaces_its_variants_network_and_a_second_for_one_variant_is_refused() {
        let tablut = Variant::standard(Rules::Tablut);
        let directory = std::env::temp_dir();
        let path = |name: &str| directory.join(format!("tafl-{}-{name}", std::process::id()));
        let (first, second) = (path("a.nnue"), path("b.nnue"));
        let network = Network::seeded(tablut, FeatureSet::Pieces, 3, provenance());
        std::fs::write(&first, network.to_bytes()).expect("a temporary file");
        std::fs::write(&second, network.to_bytes()).expect("a temporary file");
        let one = Networks::built_in_replaced_by(std::slice::from_ref(&first));
        let two = Networks::built_in_replaced_by(&[first.clone(), second.clone()]);
        std::fs::remove_file(&first).expect("remove a temporary file");
        std::fs::remove_file(&second).expect("remove a temporary file");
        let one = one.expect("a network for tablut");
        assert_eq!(one.get(tablut).map(|n| n.as_ref()), Some(&network));
        let copenhagen = Variant::standard(Rules::Copenhagen);
        assert!(
            one.get(copenhagen).is_some(),
            "the other built-in networks stay"
        );
        let error = two.expect_err("two networks for tablut");
        assert_eq!(
            error.to_string(),
            format!(
                "network file {}: a second network for tablut 9×9 (the first: {})",
                second.display(),
                first.display()
            )
        );
    }

    #[test]
    fn inserting_replaces_the_network_of_its_variant_only() {
        let copenhagen_nine = Variant::new(Rules::Copenhagen, BoardSize::Nine);
        let mut networks = Networks::built_in();
        let before = networks.iter().count();
        assert!(
            networks
                .insert(Arc::new(Network::seeded(
                    copenhagen_nine,
                    FeatureSet::Pieces,
                    1,
                    provenance()
                )))
                .is_none()
        );
        let replaced = networks.insert(Arc::new(Network::seeded(
            copenhagen_nine,
            FeatureSet::PiecesAndTerms,
            2,
            provenance(),
        )));
        assert_eq!(
            replaced.map(|n| n.as_ref().clone()),
            Some(Network::seeded(
                copenhagen_nine,
                FeatureSet::Pieces,
                1,
                provenance()
            ))
        );
        assert_eq!(networks.iter().count(), before + 1);
    }
}
