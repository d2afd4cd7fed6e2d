//! Permission rules and `disabled` (02 §Permissions and disabled skills): `pattern -> allow |
//! ask | deny` over skill names, `*` and `?` wildcards, the last matching rule wins.

use skills_types::config::{Permission, PermissionRule};

/// The permission for `name`, with the pattern of the rule that decided (none: the default).
pub(crate) fn decide<'r>(rules: &'r [PermissionRule], name: &str) -> (Permission, Option<&'r str>) {
    rules
        .iter()
        .rev()
        .find(|rule| matches(&rule.pattern, name))
        .map_or((Permission::Allow, None), |rule| {
            (rule.permission, Some(rule.pattern.as_str()))
        })
}

/// Whether `name` matches `pattern`, where `*` is any run of characters and `?` one character.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    // Iterative matching with one backtrack point: linear in practice, never exponential.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    p = star_p + 1;
                    n = star_n + 1;
                    star = Some((star_p, star_n + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        for (pattern, name, expected) in [
            ("pdf", "pdf", true),
            ("pdf", "pdf-tools", false),
            ("pdf*", "pdf-tools", true),
            ("*tools", "pdf-tools", true),
            ("*", "", true),
            ("?df", "pdf", true),
            ("?df", "df", false),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("*-*-*", "a-b-c", true),
            ("数据*", "数据清洗", true),
            ("", "", true),
            ("", "a", false),
        ] {
            assert_eq!(matches(pattern, name), expected, "{pattern} ~ {name}");
        }
    }

    #[test]
    fn last_matching_rule_wins() {
        let rules = vec![
            PermissionRule {
                pattern: "*".into(),
                permission: Permission::Deny,
            },
            PermissionRule {
                pattern: "pdf*".into(),
                permission: Permission::Ask,
            },
            PermissionRule {
                pattern: "pdf-safe".into(),
                permission: Permission::Allow,
            },
        ];
        assert_eq!(decide(&rules, "other"), (Permission::Deny, Some("*")));
        assert_eq!(decide(&rules, "pdf-tools"), (Permission::Ask, Some("pdf*")));
        assert_eq!(
            decide(&rules, "pdf-safe"),
            (Permission::Allow, Some("pdf-safe"))
        );
        assert_eq!(decide(&[], "x"), (Permission::Allow, None));
    }
}
