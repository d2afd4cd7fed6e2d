//! Names that imitate another skill: the same to the eye, or one keystroke away.
//!
//! A skill named `pdf` with a Cyrillic `р`, or `sk1ll-creator`, sits in the catalog beside
//! the real one and is picked by an agent (or a user) that trusts the name. Both names are
//! reduced to a skeleton — case folded, look-alike letters from other scripts and full-width
//! forms mapped to the Latin letter they imitate, digits that pass for letters and letter
//! pairs that pass for one letter (`rn` for `m`) replaced — and equal skeletons of different
//! names are a homoglyph. The table is this project's own and small: the characters that
//! pass for Latin letters in the fonts terminals and catalogs use.

use crate::files::NameForm;

/// Characters that pass for a Latin letter or a hyphen, and that letter.
const LOOK_ALIKES: &[(char, char)] = &[
    // Cyrillic.
    ('а', 'a'),
    ('в', 'b'),
    ('е', 'e'),
    ('ё', 'e'),
    ('һ', 'h'),
    ('і', 'i'),
    ('ї', 'i'),
    ('ј', 'j'),
    ('к', 'k'),
    ('м', 'm'),
    ('н', 'h'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('ѕ', 's'),
    ('т', 't'),
    ('у', 'y'),
    ('х', 'x'),
    ('ԁ', 'd'),
    ('ԛ', 'q'),
    ('ԝ', 'w'),
    ('ӏ', 'l'),
    // Greek.
    ('α', 'a'),
    ('β', 'b'),
    ('ε', 'e'),
    ('η', 'n'),
    ('ι', 'i'),
    ('κ', 'k'),
    ('ν', 'v'),
    ('ο', 'o'),
    ('ρ', 'p'),
    ('τ', 't'),
    ('υ', 'u'),
    ('χ', 'x'),
    ('ω', 'w'),
    // Latin letters that pass for others.
    ('ı', 'i'),
    ('ɩ', 'i'),
    ('ɑ', 'a'),
    ('ɡ', 'g'),
    ('ℓ', 'l'),
    ('ß', 'b'),
    ('ƅ', 'b'),
    // Digits and signs that pass for letters.
    ('0', 'o'),
    ('1', 'l'),
    ('|', 'l'),
    ('!', 'i'),
    ('3', 'e'),
    ('5', 's'),
    ('$', 's'),
    ('@', 'a'),
    // Dashes and joiners that pass for a hyphen.
    ('_', '-'),
    ('‐', '-'),
    ('‑', '-'),
    ('‒', '-'),
    ('–', '-'),
    ('—', '-'),
    ('−', '-'),
    ('.', '-'),
    (' ', '-'),
];

/// Letter pairs that pass for one letter.
const PAIRS: &[(&str, &str)] = &[("rn", "m"), ("vv", "w"), ("cl", "d")];

/// The skeleton of a name: what it looks like.
pub(super) fn skeleton(name: &str) -> String {
    let mut mapped = String::with_capacity(name.len());
    for character in name.chars().flat_map(char::to_lowercase) {
        let folded = if ('\u{ff01}'..='\u{ff5e}').contains(&character) {
            char::from_u32(u32::from(character) - 0xfee0).unwrap_or(character)
        } else {
            character
        };
        let folded = folded.to_ascii_lowercase();
        let shown = LOOK_ALIKES
            .iter()
            .find(|(alike, _)| *alike == folded)
            .map_or(folded, |(_, letter)| *letter);
        // `l` and `i` pass for each other in many fonts (and `I` for both).
        mapped.push(if shown == 'i' { 'l' } else { shown });
    }
    PAIRS
        .iter()
        .fold(mapped, |name, (pair, letter)| name.replace(pair, letter))
}

/// How a name relates to a neighbour's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Likeness {
    /// Different names that look the same.
    Homoglyph,
    /// One edit apart (both at least [`MIN_SIMILAR`] characters).
    OneEdit,
}

/// The shortest names compared by edit distance: shorter ones are one edit from too much.
pub(super) const MIN_SIMILAR: usize = 5;

/// How `name` relates to `neighbour`, if it imitates it.
#[cfg(test)]
pub(super) fn likeness(name: &str, neighbour: &str) -> Option<Likeness> {
    likeness_of(name, &form(name), neighbour, &form(neighbour))
}

/// What [`likeness`] compares of a name, derived once per name.
pub(super) fn form(name: &str) -> NameForm {
    let skeleton = skeleton(name);
    NameForm {
        characters: name.chars().count(),
        skeleton_characters: skeleton.chars().count(),
        skeleton,
    }
}

/// [`likeness`] of two names whose forms are known.
pub(super) fn likeness_of(
    name: &str,
    mine: &NameForm,
    neighbour: &str,
    theirs: &NameForm,
) -> Option<Likeness> {
    if name == neighbour {
        return None;
    }
    if mine.skeleton == theirs.skeleton {
        return Some(Likeness::Homoglyph);
    }
    let long_enough = mine.characters >= MIN_SIMILAR && theirs.characters >= MIN_SIMILAR;
    // Skeletons more than one character apart in length are more than one edit apart.
    let near = mine
        .skeleton_characters
        .abs_diff(theirs.skeleton_characters)
        <= 1;
    (long_enough && near && one_edit(&mine.skeleton, &theirs.skeleton)).then_some(Likeness::OneEdit)
}

/// Whether `a` and `b` are one insertion, deletion, substitution or swap of neighbouring
/// characters apart.
fn one_edit(a: &str, b: &str) -> bool {
    // A request compares every name with every other: ASCII names (nearly all) are compared
    // in place, byte for byte, which is character for character for them.
    if a.is_ascii() && b.is_ascii() {
        return one_edit_in(a.as_bytes(), b.as_bytes());
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    one_edit_in(&a, &b)
}

/// [`one_edit`] over the characters of two names.
fn one_edit_in<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        if prefix == short.len() {
            return false;
        }
        let substituted = short[prefix + 1..] == long[prefix + 1..];
        let swapped = prefix + 1 < short.len()
            && short[prefix] == long[prefix + 1]
            && short[prefix + 1] == long[prefix]
            && short[prefix + 2..] == long[prefix + 2..];
        substituted || swapped
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_from_other_scripts_and_digits_are_homoglyphs() {
        for (fake, real) in [
            ("рdf", "pdf"),
            ("skill-сreator", "skill-creator"),
            ("sk1ll-creator", "skill-creator"),
            ("d0cx", "docx"),
            ("frontend_design", "frontend-design"),
            ("rnermaid", "mermaid"),
            ("ＰＤＦ", "pdf"),
            ("PDF", "pdf"),
        ] {
            assert_eq!(likeness(fake, real), Some(Likeness::Homoglyph), "{fake}");
        }
    }

    #[test]
    fn one_edit_counts_only_for_longer_names() {
        assert_eq!(
            likeness("webapp-testng", "webapp-testing"),
            Some(Likeness::OneEdit)
        );
        assert_eq!(
            likeness("mcp-biulder", "mcp-builder"),
            Some(Likeness::OneEdit)
        );
        assert_eq!(likeness("pptx", "xlsx"), None);
        assert_eq!(likeness("docx", "docs"), None);
        assert_eq!(likeness("canvas-design", "brand-guidelines"), None);
    }

    #[test]
    fn the_same_name_is_not_an_imitation() {
        assert_eq!(likeness("pdf", "pdf"), None);
    }

    #[test]
    fn one_edit_is_exact() {
        assert!(one_edit("abcde", "abxde"));
        assert!(one_edit("abcde", "abde"));
        assert!(one_edit("abcde", "abced"));
        assert!(!one_edit("abcde", "abcde"));
        assert!(!one_edit("abcde", "axcdy"));
        assert!(!one_edit("abcde", "abc"));
        assert!(!one_edit("", "ab"));
        assert!(one_edit("", "a"));
    }
}
