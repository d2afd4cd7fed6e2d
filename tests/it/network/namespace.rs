//! The namespace every other test here relies on: private, loopback only, and a connection to
//! anywhere else fails at once without a packet leaving the machine; and the re-run that gets
//! a normal user one: it runs the named test, and a name that runs nothing is no pass.

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
    netns::run(move || assert_ne!(namespace(), outside));
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

/// Nested, so that the outer `run` carries the whole test into a re-run copy when this user
/// needs one, and the inner one is then the thread's own namespace, as for root.
#[test]
fn a_panic_inside_fails_the_test_outside() {
    netns::run(|| {
        let outcome = std::panic::catch_unwind(|| netns::run(|| panic!("inside")));
        let payload = outcome.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"inside"));
    });
}

/// The path a normal user's network tests take, taken here whoever runs the suite: the copy
/// runs the one test named, in a namespace of its own, and says it passed. Where user
/// namespaces are not available the error must say what to run instead.
#[test]
fn a_rerun_runs_the_named_test_in_a_copy_of_the_binary() {
    let test = "network::namespace::the_namespace_is_a_new_one";
    match netns::user_namespaces() {
        Ok(()) => {
            let output = netns::rerun(test).unwrap();
            assert!(output.contains("running 1 test"), "{output}");
            assert!(output.contains(&format!("test {test} ... ok")), "{output}");
        }
        Err(why) => {
            assert!(
                why.contains("unshare --user --map-root-user --net true"),
                "{why}"
            );
            assert!(netns::rerun(test).unwrap_err().contains("run them as root"));
        }
    }
}

/// `--exact` with a name that matches no test runs nothing and exits 0: that must not count
/// as a pass, or a renamed test would pass for ever without running.
#[test]
fn a_rerun_that_runs_no_test_is_a_failure() {
    let why = netns::rerun("network::namespace::no_such_test").unwrap_err();
    match netns::user_namespaces() {
        Ok(()) => {
            assert!(why.contains("did not pass"), "{why}");
            assert!(why.contains("running 0 tests"), "{why}");
        }
        Err(_) => assert!(why.contains("run them as root"), "{why}"),
    }
}
