//! Progress of long runs (`pops compare`, `pops selftest --draw`) on a terminal: one line that
//! says where the run is and how long it has taken, rewritten in place. Where standard error is
//! not a terminal (CI logs, pipes, files), nothing is written: such output is read afterwards,
//! and the results say everything.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    who: &'static str,
    started: Instant,
    shown: bool,
}

impl Progress {
    /// Progress lines of `who`, where standard error is a terminal (`TERM=dumb` counts as not).
    pub fn new(who: &'static str) -> Progress {
        let shown =
            std::io::stderr().is_terminal() && !std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Progress {
            who,
            started: Instant::now(),
            shown,
        }
    }

    /// The line for a step: `who: what, elapsed s`.
    pub fn line(&self, what: &str) -> String {
        format!(
            "{}: {what}, {:.1} s elapsed",
            self.who,
            self.started.elapsed().as_secs_f64()
        )
    }

    /// Shows `what` in place of the previous step (`keep`: on its own line, where other output
    /// follows, such as the program `pops compare` runs).
    pub fn step(&self, what: &str, keep: bool) {
        if !self.shown {
            return;
        }
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[2K{}", self.line(what));
        if keep {
            let _ = writeln!(e);
        }
        let _ = e.flush();
    }

    /// Clears the line, before the results are printed.
    pub fn done(&self) {
        if self.shown {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_says_what_and_how_long() {
        let p = Progress::new("pops compare");
        let l = p.line("run 2 of 6 (pixel-to-sample)");
        assert!(
            l.starts_with("pops compare: run 2 of 6 (pixel-to-sample), ")
                && l.ends_with(" s elapsed"),
            "{l}"
        );
    }
}
