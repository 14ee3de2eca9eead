//! One object's upload: bytes pushed in file order leave as parts of a multipart upload, with
//! at most [`ObjectWriteOptions::max_parts_in_flight`] parts on the wire, or as one PUT when
//! the whole file fits in one part.
//!
//! The bytes are never copied here: a pushed buffer is cut into parts by reference
//! (`Bytes::slice`), so what is held is the pushed buffers that still have a part in flight
//! or not yet sent.

use std::io::Write;
use std::time::Duration;

use ::object_store::path::Path;
use ::object_store::{
    MultipartUpload, ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use bytes::Bytes;
use std::sync::Arc;
use tokio::task::JoinSet;

use crate::{Error, Result};

/// How an object is uploaded: part size, parts in flight, and how long one request may take.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ObjectWriteOptions {
    /// Bytes per part of a multipart upload (the last part may be shorter). S3 refuses parts
    /// under 5 MiB except the last, and some stores (R2) want every part but the last the
    /// same size, which parts cut here always are. A file no longer than one part is written
    /// by a single PUT. 10 MiB by default.
    pub part_size: usize,
    /// Parts uploading at once, at most (at least 1). The writer waits for one to finish
    /// before it sends another, so at most this many parts of bytes are in flight. 8 by
    /// default (as object_store's `BufWriter`): a row group of 64 MiB is then on the wire
    /// while the next one encodes, where 4 would make the writer wait on every row group.
    pub max_parts_in_flight: usize,
    /// How long one request (a part, the PUT, starting or completing the upload) may take
    /// before the upload fails and is aborted. `None` (the default) leaves timeouts to the
    /// store (an HTTP store's `ClientOptions`); retries are always the store's.
    pub request_timeout: Option<Duration>,
}

impl Default for ObjectWriteOptions {
    fn default() -> Self {
        ObjectWriteOptions {
            part_size: 10 << 20,
            max_parts_in_flight: 8,
            request_timeout: None,
        }
    }
}

impl ObjectWriteOptions {
    /// These options with parts of `bytes`.
    pub fn with_part_size(mut self, bytes: usize) -> Self {
        self.part_size = bytes;
        self
    }

    /// These options with at most `parts` in flight.
    pub fn with_max_parts_in_flight(mut self, parts: usize) -> Self {
        self.max_parts_in_flight = parts;
        self
    }

    /// These options with a timeout on every request.
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    fn check(&self) -> Result<()> {
        if self.part_size == 0 || self.max_parts_in_flight == 0 {
            return Err(Error::InvalidArgument(format!(
                "an upload needs parts of at least one byte and at least one part in flight, \
                 not {} bytes and {} parts",
                self.part_size, self.max_parts_in_flight
            )));
        }
        Ok(())
    }
}

/// An object once its upload completed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UploadedObject {
    /// Where it is.
    pub path: Path,
    /// Its size in bytes, as stored.
    pub size: u64,
    /// Parts it was uploaded in (0 for a single PUT).
    pub parts: usize,
    /// The store's entity tag, when it gives one.
    pub e_tag: Option<String>,
    /// The store's version, when it keeps versions.
    pub version: Option<String>,
}

/// A writer's sink: the bytes written, cut into buffers of one part as they arrive, so that
/// no buffer grows past a part (nor is copied to grow) and a full one leaves as a part as is.
#[derive(Debug)]
pub(crate) struct Spool {
    part_size: usize,
    full: Vec<Bytes>,
    current: Vec<u8>,
}

impl Spool {
    pub(crate) fn new(part_size: usize) -> Self {
        Spool {
            part_size: part_size.max(1),
            full: Vec::new(),
            current: Vec::new(),
        }
    }

    /// Everything written and not yet taken, in order (the last buffer may be short).
    pub(crate) fn into_buffers(mut self) -> Vec<Bytes> {
        if !self.current.is_empty() {
            self.full.push(Bytes::from(self.current));
        }
        self.full
    }
}

impl Write for Spool {
    fn write(&mut self, mut buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len();
        while !buf.is_empty() {
            if self.current.capacity() == 0 {
                self.current.reserve_exact(self.part_size);
            }
            let take = (self.part_size - self.current.len()).min(buf.len());
            self.current.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if self.current.len() == self.part_size {
                self.full
                    .push(Bytes::from(std::mem::take(&mut self.current)));
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One object being uploaded (see the module docs).
pub(crate) struct Upload {
    store: Arc<dyn ObjectStore>,
    path: Path,
    options: ObjectWriteOptions,
    /// Started once the first full part is ready.
    multipart: Option<Box<dyn MultipartUpload>>,
    in_flight: JoinSet<Result<()>>,
    /// Bytes not yet in a part, shorter than a part.
    pending: Vec<Bytes>,
    pending_len: usize,
    parts: usize,
    size: u64,
    /// Set after a failed request: the upload is aborted and every later call fails.
    failed: bool,
}

impl std::fmt::Debug for Upload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upload")
            .field("path", &self.path)
            .field("parts", &self.parts)
            .field("in_flight", &self.in_flight.len())
            .field("size", &self.size)
            .finish()
    }
}

/// Run `request` under `timeout`; an error of the store or the timeout is an
/// [`Error::Upload`] naming `what`.
async fn timed<T>(
    path: &Path,
    what: String,
    timeout: Option<Duration>,
    request: impl std::future::Future<Output = ::object_store::Result<T>>,
) -> Result<T> {
    let failed = |source: Box<dyn std::error::Error + Send + Sync>| Error::Upload {
        object: path.to_string(),
        what: what.clone(),
        source,
    };
    let answer = match timeout {
        Some(t) => tokio::time::timeout(t, request).await.map_err(|_| {
            failed(Box::new(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no answer in {t:?}"),
            )))
        })?,
        None => request.await,
    };
    answer.map_err(|e| failed(Box::new(e)))
}

impl Upload {
    pub(crate) fn new(
        store: Arc<dyn ObjectStore>,
        path: Path,
        options: ObjectWriteOptions,
    ) -> Result<Self> {
        options.check()?;
        Ok(Upload {
            store,
            path,
            options,
            multipart: None,
            in_flight: JoinSet::new(),
            pending: Vec::new(),
            pending_len: 0,
            parts: 0,
            size: 0,
            failed: false,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn check_live(&self) -> Result<()> {
        if self.failed {
            return Err(Error::InvalidArgument(format!(
                "the upload of {} failed and was aborted",
                self.path
            )));
        }
        Ok(())
    }

    /// A sink for a writer whose bytes go to this upload, cut in its parts.
    pub(crate) fn spool(&self) -> Spool {
        Spool::new(self.options.part_size)
    }

    /// Send the full parts `spool` holds (waiting while the parts in flight are at their
    /// limit); what is left is shorter than a part.
    pub(crate) async fn drain(&mut self, spool: &mut Spool) -> Result<()> {
        self.check_live()?;
        for part in std::mem::take(&mut spool.full) {
            self.push(part).await?;
        }
        Ok(())
    }

    /// Append what is left in `spool` (the file's tail).
    pub(crate) async fn push_spool(&mut self, spool: Spool) -> Result<()> {
        for bytes in spool.into_buffers() {
            self.push(bytes).await?;
        }
        Ok(())
    }

    /// Append `bytes` to the object; every part they fill is sent (waiting while the parts in
    /// flight are at their limit). On a failed request the upload is aborted.
    pub(crate) async fn push(&mut self, mut bytes: Bytes) -> Result<()> {
        self.check_live()?;
        if bytes.is_empty() {
            return Ok(());
        }
        self.size += bytes.len() as u64;
        while self.pending_len + bytes.len() >= self.options.part_size {
            let rest = bytes.split_off(self.options.part_size - self.pending_len);
            self.pending.push(bytes);
            self.pending_len = self.options.part_size;
            bytes = rest;
            if let Err(e) = self.send_part().await {
                self.abort_after_failure().await;
                return Err(e);
            }
        }
        if !bytes.is_empty() {
            self.pending_len += bytes.len();
            self.pending.push(bytes);
        }
        Ok(())
    }

    /// Send the pending bytes as the next part.
    async fn send_part(&mut self) -> Result<()> {
        let timeout = self.options.request_timeout;
        if self.multipart.is_none() {
            let started = timed(
                &self.path,
                "starting the multipart upload".into(),
                timeout,
                self.store
                    .put_multipart_opts(&self.path, PutMultipartOptions::default()),
            )
            .await?;
            self.multipart = Some(started);
        }
        while self.in_flight.len() >= self.options.max_parts_in_flight {
            self.join_one().await?;
        }
        let payload: PutPayload = std::mem::take(&mut self.pending).into_iter().collect();
        self.pending_len = 0;
        self.parts += 1;
        let part = self
            .multipart
            .as_mut()
            .expect("started above")
            .put_part(payload);
        let (path, what) = (self.path.clone(), format!("part {}", self.parts));
        self.in_flight
            .spawn(async move { timed(&path, what, timeout, part).await });
        Ok(())
    }

    /// Wait for one part in flight to finish.
    async fn join_one(&mut self) -> Result<()> {
        match self.in_flight.join_next().await {
            Some(Ok(answer)) => answer,
            Some(Err(e)) => Err(Error::Upload {
                object: self.path.to_string(),
                what: "a part's task".into(),
                source: Box::new(e),
            }),
            None => Ok(()),
        }
    }

    /// Send what is left, wait for every part, and complete the upload (or PUT the whole
    /// object, if it never filled a part). On a failure the upload is aborted.
    pub(crate) async fn complete(mut self) -> Result<UploadedObject> {
        self.check_live()?;
        let timeout = self.options.request_timeout;
        let result = if self.multipart.is_none() {
            let payload: PutPayload = std::mem::take(&mut self.pending).into_iter().collect();
            timed(
                &self.path,
                "the PUT".into(),
                timeout,
                self.store
                    .put_opts(&self.path, payload, PutOptions::default()),
            )
            .await
        } else {
            self.finish_parts().await
        };
        match result {
            Ok(put) => {
                self.multipart = None;
                Ok(UploadedObject {
                    path: self.path.clone(),
                    size: self.size,
                    parts: self.parts,
                    e_tag: put.e_tag,
                    version: put.version,
                })
            }
            Err(e) => {
                self.abort_after_failure().await;
                Err(e)
            }
        }
    }

    async fn finish_parts(&mut self) -> Result<PutResult> {
        if self.pending_len > 0 {
            self.send_part().await?;
        }
        while !self.in_flight.is_empty() {
            self.join_one().await?;
        }
        let timeout = self.options.request_timeout;
        let multipart = self.multipart.as_mut().expect("a part was sent");
        timed(
            &self.path,
            "completing the multipart upload".into(),
            timeout,
            multipart.complete(),
        )
        .await
    }

    /// Stop every part in flight and abort the multipart upload, so that no object appears.
    pub(crate) async fn abort(mut self) -> Result<()> {
        self.abort_parts().await
    }

    async fn abort_parts(&mut self) -> Result<()> {
        self.in_flight.abort_all();
        match self.multipart.take() {
            Some(mut m) => {
                let timeout = self.options.request_timeout;
                timed(&self.path, "aborting the upload".into(), timeout, m.abort()).await
            }
            None => Ok(()),
        }
    }

    /// After a failed request: abort, keeping the first error for the caller.
    async fn abort_after_failure(&mut self) {
        self.failed = true;
        let _ = self.abort_parts().await;
    }
}

impl Drop for Upload {
    /// Dropped unfinished: the parts in flight stop, and the multipart upload is aborted on a
    /// task of the current tokio runtime (a drop cannot wait for it). Without a runtime, or if
    /// that task never runs, the upload is left uncompleted, which no store shows as an
    /// object.
    fn drop(&mut self) {
        self.in_flight.abort_all();
        if let Some(mut m) = self.multipart.take() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = m.abort().await;
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spool_cuts_what_is_written_into_whole_parts() {
        let mut spool = Spool::new(4);
        spool.write_all(b"ab").unwrap();
        spool.write_all(b"cdefghij").unwrap();
        spool.write_all(b"").unwrap();
        assert_eq!(spool.full, [&b"abcd"[..], b"efgh"]);
        assert_eq!(spool.current, b"ij");
        spool.full.clear();
        spool.write_all(b"kl").unwrap();
        assert_eq!(spool.into_buffers(), [&b"ijkl"[..]]);
    }
}
