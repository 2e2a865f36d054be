//! Length-delimited frames: a `u32` big-endian body length, then the body, one
//! JSON-encoded message.
//!
//! Why JSON and not a compact binary format: the messages are a few dozen bytes,
//! serde_json is already in the workspace (no new dependency, no format crate whose
//! encoding changes between major versions), a captured frame is readable in a log or
//! with `tcpdump -A`, and the field names make the encoding self-describing, so a
//! field added in a later version is an explicit error rather than silently shifted
//! bytes. The benchmark (`cargo bench -p eagle-node`) shows the codec is far from the
//! bottleneck of a probe/grant/finish cycle: the loopback round trip dominates.
//!
//! The length prefix bounds every read: a frame longer than [`MAX_FRAME_BYTES`] is
//! refused before anything is allocated for it.

use crate::MAX_FRAME_BYTES;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;
use std::io::{self, Read, Write};

/// What went wrong reading or writing a frame. Every variant but [`FrameError::Closed`]
/// means the stream can no longer be trusted: close the connection.
#[derive(Debug)]
pub enum FrameError {
    /// The peer closed the stream cleanly between two frames.
    Closed,
    /// The stream ended inside a frame: `got` of the `expected` bytes of the `part`.
    Truncated {
        /// `"length prefix"` or `"body"`.
        part: &'static str,
        expected: usize,
        got: usize,
    },
    /// The length prefix announces more than the cap.
    TooLarge { len: usize, max: usize },
    /// The body is not a valid message (bad JSON, unknown variant or field, wrong type).
    Malformed { len: usize, error: String },
    /// An I/O error other than end of stream (reset, timeout, ...).
    Io(io::Error),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Closed => write!(f, "connection closed"),
            FrameError::Truncated { part, expected, got } => {
                write!(f, "truncated frame: stream ended after {got} of {expected} bytes of the {part}")
            }
            FrameError::TooLarge { len, max } => {
                write!(f, "oversized frame: {len} bytes announced, the limit is {max}")
            }
            FrameError::Malformed { len, error } => write!(f, "malformed frame ({len} bytes): {error}"),
            FrameError::Io(e) => write!(f, "i/o error: {e}"),
        }
    }
}

impl std::error::Error for FrameError {}

impl From<io::Error> for FrameError {
    fn from(e: io::Error) -> Self {
        FrameError::Io(e)
    }
}

/// Reads exactly `buf.len()` bytes; returns how many were read before end of stream.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Reads frames from a stream, reusing one body buffer.
#[derive(Debug)]
pub struct FrameReader<R> {
    inner: R,
    buf: Vec<u8>,
}

impl<R: Read> FrameReader<R> {
    /// Wraps a stream (give it a `BufReader` over a socket: the reader reads exactly
    /// the frame's bytes, never past it).
    pub fn new(inner: R) -> Self {
        FrameReader { inner, buf: Vec::new() }
    }

    /// The underlying stream.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Reads one frame and decodes it as `T`. See [`FrameError`] for the failures.
    pub fn read<T: DeserializeOwned>(&mut self) -> Result<T, FrameError> {
        let mut len = [0u8; 4];
        match read_full(&mut self.inner, &mut len)? {
            0 => return Err(FrameError::Closed),
            4 => {}
            got => return Err(FrameError::Truncated { part: "length prefix", expected: 4, got }),
        }
        let len = u32::from_be_bytes(len) as usize;
        if len > MAX_FRAME_BYTES {
            return Err(FrameError::TooLarge { len, max: MAX_FRAME_BYTES });
        }
        if len == 0 {
            return Err(FrameError::Malformed { len, error: "empty body".into() });
        }
        self.buf.resize(len, 0);
        let got = read_full(&mut self.inner, &mut self.buf)?;
        if got < len {
            return Err(FrameError::Truncated { part: "body", expected: len, got });
        }
        serde_json::from_slice(&self.buf).map_err(|e| FrameError::Malformed { len, error: e.to_string() })
    }
}

/// Reads one frame from `r` (allocates a body buffer; use [`FrameReader`] in a loop).
pub fn read_frame<R: Read, T: DeserializeOwned>(r: &mut R) -> Result<T, FrameError> {
    FrameReader::new(r).read()
}

/// Encodes `msg` as one frame and writes it with a single `write_all`. The caller
/// flushes (a daemon writes a batch of replies, then flushes once).
pub fn write_frame<W: Write, T: Serialize>(w: &mut W, msg: &T) -> Result<(), FrameError> {
    let mut buf = Vec::with_capacity(128);
    buf.extend_from_slice(&[0; 4]);
    serde_json::to_writer(&mut buf, msg).map_err(|e| FrameError::Malformed { len: 0, error: e.to_string() })?;
    let len = buf.len() - 4;
    if len > MAX_FRAME_BYTES {
        return Err(FrameError::TooLarge { len, max: MAX_FRAME_BYTES });
    }
    buf[..4].copy_from_slice(&(len as u32).to_be_bytes());
    w.write_all(&buf)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{FromNode, ToCentral, ToNode};
    use std::io::Cursor;

    fn frame_of(body: &[u8]) -> Vec<u8> {
        let mut v = (body.len() as u32).to_be_bytes().to_vec();
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn cpus_is_left_out_when_one_and_read_as_one_when_absent() {
        let narrow = serde_json::to_string(&ToNode::Probe { job: 1, tasks: 2, est_ms: 3.0, cpus: 1 }).unwrap();
        assert!(!narrow.contains("cpus"), "{narrow}");
        let old: ToNode = serde_json::from_str(r#"{"Probe":{"job":1,"tasks":2,"est_ms":3.0}}"#).unwrap();
        assert_eq!(old, ToNode::Probe { job: 1, tasks: 2, est_ms: 3.0, cpus: 1 });
        let wide = ToCentral::SubmitLong {
            job: 4,
            tasks: 2,
            est_ms: 5.0,
            cpus: 4,
            hosts: None,
            avoid: Vec::new(),
            input: Vec::new(),
        };
        let text = serde_json::to_string(&wide).unwrap();
        assert!(text.contains(r#""cpus":4"#), "{text}");
        assert_eq!(serde_json::from_str::<ToCentral>(&text).unwrap(), wide);
        assert!(
            !text.contains("hosts") && !text.contains("avoid") && !text.contains("input"),
            "an unrestricted job without input names no hosts: {text}"
        );
        let kept = ToCentral::SubmitLong {
            job: 4,
            tasks: 2,
            est_ms: 5.0,
            cpus: 1,
            hosts: Some(vec!["w2".into(), "w3".into()]),
            avoid: vec!["w3".into()],
            input: vec![("w2".into(), 2)],
        };
        let text = serde_json::to_string(&kept).unwrap();
        assert!(text.contains(r#""hosts":["w2","w3"],"avoid":["w3"],"input":[["w2",2]]"#), "{text}");
        assert_eq!(serde_json::from_str::<ToCentral>(&text).unwrap(), kept);
    }

    #[test]
    fn round_trip_of_every_kind() {
        let msgs = vec![
            ToNode::Probe { job: 7, tasks: 3, est_ms: 12.5, cpus: 1 },
            ToNode::Place {
                app: "app-1".into(),
                job: 9,
                est_ms: 1e6,
                bitvector: crate::Bitvector { stamp: 4, words: vec![5, 1 << 63] },
                cpus: 1,
            },
            ToNode::Launched { lease: u64::MAX },
            ToNode::Status,
        ];
        let mut buf = Vec::new();
        for m in &msgs {
            write_frame(&mut buf, m).unwrap();
        }
        let mut r = FrameReader::new(Cursor::new(buf));
        for m in &msgs {
            assert_eq!(&r.read::<ToNode>().unwrap(), m);
        }
        assert!(matches!(r.read::<ToNode>(), Err(FrameError::Closed)), "clean end between frames");
    }

    #[test]
    fn the_short_only_hosts_go_to_a_driver_by_index() {
        let m = crate::FromCentral::ShortOnly { hosts: vec![0, 3] };
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(text, r#"{"ShortOnly":{"hosts":[0,3]}}"#);
        let mut buf = Vec::new();
        write_frame(&mut buf, &m).unwrap();
        assert_eq!(FrameReader::new(Cursor::new(buf)).read::<crate::FromCentral>().unwrap(), m);
    }

    #[test]
    fn truncated_prefix_and_body_are_named() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &FromNode::Grant { lease: 1, job: 2, long: false, kept: true }).unwrap();
        let cut = &buf[..buf.len() - 3];
        match read_frame::<_, FromNode>(&mut Cursor::new(cut)) {
            Err(FrameError::Truncated { part: "body", expected, got }) => assert_eq!(got + 3, expected),
            other => panic!("expected a truncated body, got {other:?}"),
        }
        match read_frame::<_, FromNode>(&mut Cursor::new(&buf[..2])) {
            Err(e @ FrameError::Truncated { part: "length prefix", .. }) => {
                assert!(e.to_string().contains("2 of 4 bytes of the length prefix"), "{e}")
            }
            other => panic!("expected a truncated prefix, got {other:?}"),
        }
    }

    #[test]
    fn oversized_frame_is_refused_before_reading_the_body() {
        let mut v = ((MAX_FRAME_BYTES + 1) as u32).to_be_bytes().to_vec();
        v.extend_from_slice(b"{}"); // the body is never read
        let e = read_frame::<_, ToNode>(&mut Cursor::new(v)).unwrap_err();
        assert!(matches!(e, FrameError::TooLarge { len, .. } if len == MAX_FRAME_BYTES + 1), "{e:?}");
        assert!(e.to_string().contains("oversized"), "{e}");
        // And the writer refuses to produce one.
        let huge = FromNode::Error { what: "x".repeat(MAX_FRAME_BYTES) };
        assert!(matches!(write_frame(&mut Vec::new(), &huge), Err(FrameError::TooLarge { .. })));
    }

    #[test]
    fn garbage_unknown_variant_and_unknown_field_are_malformed() {
        for body in [
            &b"\x00\xffnot json"[..],
            br#"{"Explode":{}}"#,
            br#"{"Probe":{"job":1,"tasks":1,"est_ms":1.0,"extra":1}}"#,
            br#"{"Probe":{"job":-1,"tasks":1,"est_ms":1.0}}"#,
        ] {
            let e = read_frame::<_, ToNode>(&mut Cursor::new(frame_of(body))).unwrap_err();
            assert!(matches!(e, FrameError::Malformed { .. }), "{body:?}: {e:?}");
        }
        let e = read_frame::<_, ToNode>(&mut Cursor::new(frame_of(br#"{"Explode":{}}"#))).unwrap_err();
        assert!(e.to_string().contains("Explode"), "the error names the unknown variant: {e}");
        let e = read_frame::<_, ToNode>(&mut Cursor::new(frame_of(b""))).unwrap_err();
        assert!(e.to_string().contains("empty body"), "{e}");
    }
}
