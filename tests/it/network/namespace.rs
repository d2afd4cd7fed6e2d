//! The namespace every other test here relies on: private, loopback only, and a connection to
//! anywhere else fails at once without a packet leaving the machine.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use skills_tests::netns;

fn namespace() -> String {
    std::fs::read_link("/proc/thread-self/ns/net")
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn the_namespace_is_a_new_one() {
    let outside = namespace();
    let inside = netns::run(namespace);
    assert_ne!(inside, outside);
}

#[test]
fn loopback_works_inside() {
    netns::run(|| {
        for address in ["127.0.0.1:0", "[::1]:0"] {
            let listener = TcpListener::bind(address).unwrap();
            let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let (mut server, _) = listener.accept().unwrap();
            client.write_all(b"ping").unwrap();
            drop(client);
            let mut received = String::new();
            server.read_to_string(&mut received).unwrap();
            assert_eq!(received, "ping", "{address}");
        }
    });
}

/// Safe only because it runs inside: `netns::run` checked that `lo` is the one interface and
/// that no route names another, so these connections have nowhere to go.
#[test]
fn anything_but_loopback_is_unreachable_inside() {
    netns::run(|| {
        let targets: [SocketAddr; 3] = [
            "192.0.2.1:443".parse().unwrap(),
            "[2001:db8::1]:443".parse().unwrap(),
            "[::ffff:192.0.2.1]:443".parse().unwrap(),
        ];
        for target in targets {
            // Unreachable, not timed out: with no route the kernel refuses at once, so the
            // kind of the error is the proof that nothing left the namespace.
            let error = TcpStream::connect_timeout(&target, Duration::from_secs(2)).unwrap_err();
            assert_eq!(
                error.kind(),
                ErrorKind::NetworkUnreachable,
                "{target}: {error}"
            );
        }
    });
}

#[test]
fn a_panic_inside_fails_the_test_outside() {
    let outcome = std::panic::catch_unwind(|| netns::run(|| panic!("inside")));
    let payload = outcome.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"inside"));
}
