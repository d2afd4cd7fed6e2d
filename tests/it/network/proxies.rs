//! Proxies from the environment are ignored (03 §Which addresses may be connected to): a proxy
//! would do the resolving itself, past every address check. The `skills` binary runs with every
//! proxy variable pointing at a second fixture; the request must go straight to the real one.
//! A child process gets its own environment, so the test's process environment stays
//! untouched.

use skills_tests::http::Server;

use super::{Home, client_connections, isolated, skill_md, targets};

const PROXY_VARIABLES: [&str; 6] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

#[test]
fn the_binary_ignores_proxies_in_the_environment() {
    isolated(|| async {
        let home = Home::new();
        let origin = Server::start().unwrap();
        origin.text("/proxied/SKILL.md", &skill_md("proxied"));
        let proxy = Server::start().unwrap();
        let proxy_url = format!("http://{}", proxy.address());

        let mut command = skills_tests::skills();
        command
            .arg("--home")
            .arg(&home.home)
            .arg("--workspace")
            .arg(&home.workspace)
            .args(["--json", "install", "--timeout", "10"])
            .arg(origin.url("/proxied/SKILL.md"))
            .env("SKILLS_INSTALL_ALLOW_LOCAL_HTTP", "1")
            .env("SKILLS_DISABLE_EXTERNAL", "1")
            .env_remove("NO_PROXY")
            .env_remove("no_proxy");
        for variable in PROXY_VARIABLES {
            command.env(variable, &proxy_url);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");

        assert_eq!(client_connections(&proxy), 0, "the proxy was used");
        assert_eq!(targets(&origin), ["/proxied/SKILL.md"]);
        let installed = home.root().join("proxied/SKILL.md");
        assert_eq!(
            std::fs::read_to_string(&installed).unwrap(),
            skill_md("proxied")
        );
    });
}
