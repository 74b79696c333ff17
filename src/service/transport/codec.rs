//! The protobuf codec of the generated server and client: prost's, except
//! that a request that does not decode is the caller's mistake
//! (INVALID_ARGUMENT with ErrorInfo `MALFORMED_MESSAGE`, as every caller's
//! error carries one), not ours (prost's codec says INTERNAL).

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::ProstEncoder;

use crate::service::error::ServiceError;

/// A [`Codec`] for `application/grpc+proto` that reports undecodable
/// messages as INVALID_ARGUMENT.
#[derive(Debug)]
pub struct TaflCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for TaflCodec<T, U> {
    fn default() -> Self {
        TaflCodec(PhantomData)
    }
}

impl<T, U> Codec for TaflCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = TaflDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::default()
    }

    fn decoder(&mut self) -> Self::Decoder {
        TaflDecoder(PhantomData)
    }
}

/// Decodes one message; see [`TaflCodec`].
#[derive(Debug)]
pub struct TaflDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for TaflDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf)
            .map(Some)
            .map_err(|error| ServiceError::MalformedMessage(error.to_string()).into())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}
