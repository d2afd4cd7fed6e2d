//! A small HTTP/1.1 fixture server on loopback, for the install tests.
//!
//! It is deliberately simple and deliberately able to misbehave: each path answers with a
//! [`Reply`] that may lie about its length, never end, or drip one byte at a time. Every
//! request is recorded, so a test can prove a URL was never fetched. It listens only on a
//! loopback address the test chooses (`127.0.0.1` or `::1`); nothing here opens a connection
//! to anywhere.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// How one path answers.
#[derive(Clone, Debug)]
pub enum Reply {
    /// `200 OK` with this body.
    Ok(Vec<u8>),
    /// This status with a short text body.
    Status(u16),
    /// `302 Found` to this location (sent verbatim).
    Redirect(String),
    /// `200 OK` announcing `announced` bytes in `Content-Length` but sending `body`.
    LyingLength { announced: u64, body: Vec<u8> },
    /// `200 OK`, chunked, sending `chunk` forever (until the client goes away).
    Endless { chunk: Vec<u8> },
    /// `200 OK` with a correct length, sending one byte of `body` every `every`.
    Drip { body: Vec<u8>, every: Duration },
    /// `200 OK` with this body, held back until as many requests as `gate` was made for have
    /// reached it: concurrent clients get their answers at the same instant.
    Gated { body: Vec<u8>, gate: Arc<Barrier> },
    /// This status, these extra headers and this body (a correct `Content-Length` is added):
    /// a `429` with `Retry-After`, a JSON `Content-Type`, an `ETag`.
    Full {
        /// The status code.
        status: u16,
        /// Extra headers, sent verbatim.
        headers: Vec<(String, String)>,
        /// The body.
        body: Vec<u8>,
    },
    /// `200 OK` with this body and validators; a request whose `If-None-Match` equals `etag`
    /// or whose `If-Modified-Since` equals `last_modified` gets `304 Not Modified`, no body.
    Conditional {
        /// The body.
        body: Vec<u8>,
        /// The `ETag` sent (quoted as given).
        etag: String,
        /// The `Last-Modified` sent.
        last_modified: String,
    },
    /// The first request gets the first reply, the second the second, and so on; the last
    /// answers every request after.
    Sequence(Vec<Reply>),
}

/// One recorded request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The request target as sent (path and query).
    pub target: String,
    /// The request headers, names lowercased, in order.
    pub headers: Vec<(String, String)>,
}

impl Hit {
    /// The value of header `name` (lowercase), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

#[derive(Default)]
struct Shared {
    routes: Mutex<HashMap<String, Reply>>,
    /// Requests so far per path, for [`Reply::Sequence`].
    counts: Mutex<HashMap<String, usize>>,
    hits: Mutex<Vec<Hit>>,
    stopping: AtomicBool,
    accepted: AtomicUsize,
}

/// A running fixture server; it stops when dropped.
pub struct Server {
    address: SocketAddr,
    shared: Arc<Shared>,
}

impl Server {
    /// A server on `127.0.0.1`, on a free port.
    pub fn start() -> std::io::Result<Self> {
        Self::start_on(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0))
    }

    /// A server on `[::1]`, on a free port.
    pub fn start_v6() -> std::io::Result<Self> {
        Self::start_on(SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 0))
    }

    /// A server on `address`, which must be a loopback address.
    pub fn start_on(address: SocketAddr) -> std::io::Result<Self> {
        if !address.ip().is_loopback() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the fixture server listens on loopback only",
            ));
        }
        let listener = TcpListener::bind(address)?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let accepting = shared.clone();
        thread::Builder::new()
            .name(format!("fixture-{address}"))
            .spawn(move || accept(&listener, &accepting))?;
        Ok(Self { address, shared })
    }

    /// The socket address listened on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The port listened on.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// `http://<address><path>` (`path` starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// `http://localhost:<port><path>`: the name form, for tests that go through a resolver.
    pub fn localhost_url(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.address.port())
    }

    /// Makes `path` (without the query string) answer with `reply`.
    pub fn route(&self, path: &str, reply: Reply) -> &Self {
        lock(&self.shared.routes).insert(path.to_owned(), reply);
        self
    }

    /// Shorthand for a `200 OK` text body.
    pub fn text(&self, path: &str, body: &str) -> &Self {
        self.route(path, Reply::Ok(body.as_bytes().to_vec()))
    }

    /// Every request so far, in arrival order.
    pub fn hits(&self) -> Vec<Hit> {
        lock(&self.shared.hits).clone()
    }

    /// The request targets so far, in arrival order.
    pub fn targets(&self) -> Vec<String> {
        self.hits().into_iter().map(|hit| hit.target).collect()
    }

    /// How many connections were accepted so far, including those that never sent a complete
    /// request (a TLS handshake, a client that gave up), which [`Server::hits`] cannot show.
    pub fn connections(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the accept loop; it sees the flag and returns.
        drop(TcpStream::connect_timeout(
            &self.address,
            Duration::from_secs(1),
        ));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn accept(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        shared.accepted.fetch_add(1, Ordering::SeqCst);
        let shared = shared.clone();
        // A connection that cannot get a thread is dropped, which the client sees as a reset.
        drop(thread::Builder::new().spawn(move || serve(stream, &shared)));
    }
}

fn serve(stream: TcpStream, shared: &Shared) {
    drop(stream.set_read_timeout(Some(Duration::from_secs(10))));
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader.take(64 * 1024));
    let mut request_line = String::new();
    // A connection that closes without a request line (or sends bytes that are not one) is
    // counted by `connections()` only: it is not a request, and recording it from this
    // thread would race with the requests of other connections.
    if !matches!(reader.read_line(&mut request_line), Ok(read) if read > 0) {
        return;
    }
    let target = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line.trim_end().is_empty() => break,
            Ok(_) => {
                if let Some((name, value)) = line.trim_end().split_once(':') {
                    headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
                }
            }
        }
    }
    let path = target.split('?').next().unwrap_or("/").to_owned();
    let hit = Hit { target, headers };
    lock(&shared.hits).push(hit.clone());
    let mut reply = lock(&shared.routes)
        .get(&path)
        .cloned()
        .unwrap_or(Reply::Status(404));
    if let Reply::Sequence(replies) = reply {
        let mut counts = lock(&shared.counts);
        let count = counts.entry(path).or_default();
        reply = replies
            .get(*count)
            .or(replies.last())
            .cloned()
            .unwrap_or(Reply::Status(404));
        *count += 1;
    }
    if let Reply::Conditional {
        etag,
        last_modified,
        ..
    } = &reply
        && (hit.header("if-none-match") == Some(etag.as_str())
            || hit.header("if-modified-since") == Some(last_modified.as_str()))
    {
        reply = Reply::Full {
            status: 304,
            headers: vec![("ETag".to_owned(), etag.clone())],
            body: Vec::new(),
        };
    }
    // A write error means the client went away, which ends the exchange either way.
    drop(respond(stream, reply));
}

fn respond(mut stream: TcpStream, reply: Reply) -> std::io::Result<()> {
    match reply {
        Reply::Ok(body) => {
            head(&mut stream, "200 OK", Some(body.len() as u64), &[])?;
            stream.write_all(&body)
        }
        Reply::Status(status) => {
            let body = format!("status {status}\n");
            head(
                &mut stream,
                &format!("{status} Fixture"),
                Some(body.len() as u64),
                &[],
            )?;
            stream.write_all(body.as_bytes())
        }
        Reply::Redirect(location) => head(
            &mut stream,
            "302 Found",
            Some(0),
            &[("Location", location.as_str())],
        ),
        Reply::LyingLength { announced, body } => {
            head(&mut stream, "200 OK", Some(announced), &[])?;
            stream.write_all(&body)
        }
        Reply::Endless { chunk } => {
            head(
                &mut stream,
                "200 OK",
                None,
                &[("Transfer-Encoding", "chunked")],
            )?;
            let framed = [
                format!("{:x}\r\n", chunk.len()).into_bytes(),
                chunk,
                b"\r\n".to_vec(),
            ]
            .concat();
            loop {
                stream.write_all(&framed)?;
            }
        }
        Reply::Drip { body, every } => {
            head(&mut stream, "200 OK", Some(body.len() as u64), &[])?;
            for byte in body {
                stream.write_all(&[byte])?;
                stream.flush()?;
                thread::sleep(every);
            }
            Ok(())
        }
        Reply::Gated { body, gate } => {
            gate.wait();
            head(&mut stream, "200 OK", Some(body.len() as u64), &[])?;
            stream.write_all(&body)
        }
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let extra: Vec<(&str, &str)> = headers
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str()))
                .collect();
            // A 304 carries no body and, by the standard, no length either.
            let length = (status != 304).then_some(body.len() as u64);
            head(&mut stream, &format!("{status} Fixture"), length, &extra)?;
            stream.write_all(&body)
        }
        Reply::Conditional {
            body,
            etag,
            last_modified,
        } => {
            head(
                &mut stream,
                "200 OK",
                Some(body.len() as u64),
                &[("ETag", &etag), ("Last-Modified", &last_modified)],
            )?;
            stream.write_all(&body)
        }
        Reply::Sequence(_) => head(&mut stream, "500 Fixture", Some(0), &[]),
    }
}

fn head(
    stream: &mut TcpStream,
    status: &str,
    length: Option<u64>,
    extra: &[(&str, &str)],
) -> std::io::Result<()> {
    let mut text = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    if let Some(length) = length {
        text.push_str(&format!("Content-Length: {length}\r\n"));
    }
    for (name, value) in extra {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    stream.write_all(text.as_bytes())?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(server: &Server, path: &str) -> String {
        let mut stream = TcpStream::connect(server.address()).expect("connects to the fixture");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nX-Probe: 1\r\n\r\n"
        )
        .expect("writes");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("reads");
        answer
    }

    #[test]
    fn serves_routes_records_hits_and_answers_404_otherwise() {
        let server = Server::start().expect("starts");
        server.text("/a", "hello");
        let answer = get(&server, "/a?x=1");
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.ends_with("\r\n\r\nhello"), "{answer}");
        assert!(get(&server, "/missing").starts_with("HTTP/1.1 404 "));
        let hits = server.hits();
        assert_eq!(server.targets(), ["/a?x=1", "/missing"]);
        assert_eq!(hits[0].header("x-probe"), Some("1"));
    }

    #[test]
    fn lies_and_redirects_as_told() {
        let server = Server::start_v6().expect("starts on ::1");
        server.route(
            "/lie",
            Reply::LyingLength {
                announced: 3,
                body: b"abcdef".to_vec(),
            },
        );
        server.route("/go", Reply::Redirect("file:///etc/passwd".to_owned()));
        assert!(get(&server, "/lie").contains("Content-Length: 3\r\n"));
        let redirect = get(&server, "/go");
        assert!(redirect.starts_with("HTTP/1.1 302 Found"), "{redirect}");
        assert!(redirect.contains("Location: file:///etc/passwd\r\n"));
        assert!(server.url("/x").starts_with("http://[::1]:"));
    }

    #[test]
    fn counts_connections_that_never_send_a_request() {
        let server = Server::start().expect("starts");
        drop(TcpStream::connect(server.address()).expect("connects"));
        // The accept loop takes connections in order: once this request is answered, the
        // silent connection before it has been counted.
        assert!(get(&server, "/after").starts_with("HTTP/1.1 404 "));
        assert_eq!(server.connections(), 2);
        assert_eq!(
            server.targets(),
            ["/after"],
            "a silent connection is not a request"
        );
    }

    #[test]
    fn a_gated_reply_waits_for_every_request_it_was_made_for() {
        let server = Server::start().expect("starts");
        server.route(
            "/gate",
            Reply::Gated {
                body: b"open".to_vec(),
                gate: Arc::new(Barrier::new(3)),
            },
        );
        let server = Arc::new(server);
        let clients: Vec<_> = (0..3)
            .map(|_| {
                let server = server.clone();
                thread::spawn(move || get(&server, "/gate"))
            })
            .collect();
        for client in clients {
            let answer = client.join().expect("the client finishes");
            assert!(answer.ends_with("\r\n\r\nopen"), "{answer}");
        }
        assert_eq!(server.targets().len(), 3);
    }

    #[test]
    fn sequences_answer_in_turn_and_conditionals_answer_304_to_their_validators() {
        let server = Server::start().expect("starts");
        server.route(
            "/busy",
            Reply::Sequence(vec![
                Reply::Full {
                    status: 429,
                    headers: vec![("Retry-After".to_owned(), "1".to_owned())],
                    body: b"slow down".to_vec(),
                },
                Reply::Ok(b"done".to_vec()),
            ]),
        );
        let first = get(&server, "/busy");
        assert!(first.starts_with("HTTP/1.1 429 "), "{first}");
        assert!(first.contains("Retry-After: 1\r\n"), "{first}");
        assert!(get(&server, "/busy").ends_with("\r\n\r\ndone"));
        assert!(get(&server, "/busy").ends_with("\r\n\r\ndone"));

        server.route(
            "/catalog",
            Reply::Conditional {
                body: b"[]".to_vec(),
                etag: "\"v1\"".to_owned(),
                last_modified: "Wed, 02 Dec 2026 10:00:00 GMT".to_owned(),
            },
        );
        let fresh = get(&server, "/catalog");
        assert!(fresh.contains("ETag: \"v1\"\r\n"), "{fresh}");
        let mut stream = TcpStream::connect(server.address()).expect("connects");
        write!(
            stream,
            "GET /catalog HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v1\"\r\n\r\n"
        )
        .expect("writes");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("reads");
        assert!(answer.starts_with("HTTP/1.1 304 "), "{answer}");
        assert!(answer.ends_with("\r\n\r\n"), "no body: {answer}");
    }

    #[test]
    fn refuses_to_listen_off_loopback() {
        let outside = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0);
        assert!(Server::start_on(outside).is_err());
    }
}
