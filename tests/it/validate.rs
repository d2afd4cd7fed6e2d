//! `skills validate` through the binary: exit codes, output shapes.

use skills_tests::skills;

#[test]
fn help_exits_zero() {
    let output = skills().arg("--help").output().unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("validate"));
}
