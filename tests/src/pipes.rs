//! A child's output as the tests read it: stdout line by line through a channel (so a test
//! waits for a line with a deadline, never a sleep), stderr collected whole for the failure
//! report. The `serve`, `watch` and other long-running command tests share it.

use std::io::{BufRead, BufReader, Read};
use std::process::Child;
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread;

/// What a child prints, read on two threads until its pipes close.
#[derive(Debug)]
pub struct Pipes {
    /// Each line of stdout, in order.
    pub lines: mpsc::Receiver<String>,
    /// Everything on stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

impl Pipes {
    /// Takes the child's piped stdout and stderr (both must be `Stdio::piped()`) and starts
    /// reading them.
    #[expect(
        clippy::expect_used,
        reason = "a test helper: a child spawned without pipes is a broken test"
    )]
    pub fn take(child: &mut Child) -> Self {
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = stderr.clone();
        thread::spawn(move || {
            let mut chunk = [0_u8; 4096];
            while let Ok(read @ 1..) = pipe.read(&mut chunk) {
                collected
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push_str(&String::from_utf8_lossy(&chunk[..read]));
            }
        });
        Self { lines, stderr }
    }
}
