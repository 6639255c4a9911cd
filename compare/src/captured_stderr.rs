//! What a driver prints on the process's standard error while a call runs, kept rather than
//! shown: RADV hands out a PS epilog's code only through its debug dump (`RADV_DEBUG=epilogs`),
//! which it prints with C stdio on file descriptor 2. The descriptor is pointed at an anonymous
//! file for the call and restored after it, whatever the call does.

use std::io::{Read, Seek, SeekFrom};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const STDERR: i32 = 2;

/// Why standard error could not be captured.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("cannot create a file to capture the driver's output in: {0}")]
    File(std::io::Error),
    #[error("cannot redirect standard error: {0}")]
    Redirect(nix::Error),
    #[error("cannot read the driver's captured output: {0}")]
    Read(std::io::Error),
}

/// Standard error redirected into a file until [`Captured::finish`] or drop.
struct Captured {
    saved: Option<OwnedFd>,
    file: std::fs::File,
}

impl Captured {
    fn start() -> Result<Captured, CaptureError> {
        let file = tempfile::tempfile().map_err(CaptureError::File)?;
        let saved = nix::unistd::dup(STDERR).map_err(CaptureError::Redirect)?;
        // SAFETY: `dup` returned a new descriptor that nothing else owns.
        let saved = unsafe { OwnedFd::from_raw_fd(saved) };
        nix::unistd::dup2(file.as_raw_fd(), STDERR).map_err(CaptureError::Redirect)?;
        Ok(Captured {
            saved: Some(saved),
            file,
        })
    }

    fn restore(&mut self) {
        if let Some(saved) = self.saved.take() {
            // Nothing better to do if restoring fails: the process keeps the file as stderr.
            let _ = nix::unistd::dup2(saved.as_raw_fd(), STDERR);
        }
    }

    fn finish(mut self) -> Result<String, CaptureError> {
        self.restore();
        let mut text = String::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| {
                let mut bytes = Vec::new();
                self.file.read_to_end(&mut bytes)?;
                text = String::from_utf8_lossy(&bytes).into_owned();
                Ok(())
            })
            .map_err(CaptureError::Read)?;
        Ok(text)
    }
}

impl Drop for Captured {
    fn drop(&mut self) {
        self.restore();
    }
}

/// Runs `f` with standard error captured: its result and what was printed meanwhile.
pub fn capture<T>(f: impl FnOnce() -> T) -> Result<(T, String), CaptureError> {
    let c = Captured::start()?;
    let r = f();
    Ok((r, c.finish()?))
}

#[cfg(test)]
mod tests {
    /// What is written to descriptor 2 during the call is returned, not shown, and standard
    /// error is itself again afterwards.
    #[test]
    fn output_on_descriptor_two_is_captured_and_stderr_restored() {
        use std::io::Write;
        let (v, text) = super::capture(|| {
            let mut e = std::io::stderr();
            let _ = e.write_all(b"disasm:\n\ts_endpgm\n");
            let _ = e.flush();
            7
        })
        .unwrap();
        assert_eq!(v, 7);
        assert_eq!(text, "disasm:\n\ts_endpgm\n");
        let (_, again) = super::capture(|| ()).unwrap();
        assert_eq!(again, "", "a second capture starts empty");
    }
}
