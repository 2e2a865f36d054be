//! The identifiers the central's modules share: a connection, numbered by the server, and a
//! host, by its place in the host list (its bit of the Succinct State Sharing bitvector).

pub use eagle_wire::net::ConnId;
/// A host's index in the host list (the bit of the bitvector).
pub type HostId = u32;
