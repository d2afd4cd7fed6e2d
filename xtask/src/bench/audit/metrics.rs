//! The figures of the audit rows: one scale of severities every scanner's answer is read onto,
//! the verdict the rows score ("flagged at high or above"), and precision, recall, F1 and
//! shares, each `None` where its denominator is zero — a figure that does not exist is printed
//! `n/a`, never as a flattering 0 or 1.

/// A scanner's worst finding on one skill, least first; `Safe` is a report with no finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Severity {
    Safe,
    Info,
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    /// Every severity, least first: the columns of a histogram.
    pub(crate) const ALL: [Self; 6] = [
        Self::Safe,
        Self::Info,
        Self::Low,
        Self::Medium,
        Self::High,
        Self::Critical,
    ];

    /// The word every scanner here writes (`"HIGH"`), any case; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|severity| severity.key().eq_ignore_ascii_case(text.trim()))
    }

    /// The word in capitals, as the reports write it.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Safe => "SAFE",
            Self::Info => "INFO",
            Self::Low => "LOW",
            Self::Medium => "MEDIUM",
            Self::High => "HIGH",
            Self::Critical => "CRITICAL",
        }
    }

    /// The verdict the rows score: the "flagged at high or above", the severity at
    /// which `skills install` starts asking.
    pub(crate) fn flagged(self) -> bool {
        self >= FLAGGED_AT
    }
}

/// The least severity that counts as flagged.
pub(crate) const FLAGGED_AT: Severity = Severity::High;

/// Verdicts against labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Confusion {
    /// Malicious and flagged.
    pub(crate) true_positives: usize,
    /// Benign and flagged.
    pub(crate) false_positives: usize,
    /// Benign and not flagged.
    pub(crate) true_negatives: usize,
    /// Malicious and not flagged.
    pub(crate) false_negatives: usize,
}

impl Confusion {
    /// Counts one labelled verdict.
    pub(crate) fn count(&mut self, malicious: bool, flagged: bool) {
        match (malicious, flagged) {
            (true, true) => self.true_positives += 1,
            (false, true) => self.false_positives += 1,
            (false, false) => self.true_negatives += 1,
            (true, false) => self.false_negatives += 1,
        }
    }

    /// Of the flagged, the share that is malicious; `None` when nothing was flagged.
    pub(crate) fn precision(&self) -> Option<f64> {
        share(
            self.true_positives,
            self.true_positives + self.false_positives,
        )
    }

    /// Of the malicious, the share flagged; `None` when nothing is malicious.
    pub(crate) fn recall(&self) -> Option<f64> {
        share(
            self.true_positives,
            self.true_positives + self.false_negatives,
        )
    }

    /// The harmonic mean of precision and recall, written `2 TP / (2 TP + FP + FN)`: the same
    /// number, and defined (0) when one of the two is 0 or undefined while the other is not;
    /// `None` only when there is nothing malicious and nothing flagged.
    pub(crate) fn f1(&self) -> Option<f64> {
        let tp = self.true_positives;
        share(2 * tp, 2 * tp + self.false_positives + self.false_negatives)
    }

    /// Benign specimens flagged, over the benign; `None` when none is benign.
    pub(crate) fn false_positive_rate(&self) -> Option<f64> {
        share(
            self.false_positives,
            self.false_positives + self.true_negatives,
        )
    }

    pub(crate) fn total(&self) -> usize {
        self.true_positives + self.false_positives + self.true_negatives + self.false_negatives
    }
}

/// `part / whole`, `None` when `whole` is 0.
pub(crate) fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// A share or score as the tables print it (`0.953`), `n/a` when undefined.
pub(crate) fn figure(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_owned(), |value| format!("{value:.3}"))
}

/// A share as a percentage (`4.7%`), `n/a` when undefined.
pub(crate) fn percent(value: Option<f64>) -> String {
    value.map_or_else(
        || "n/a".to_owned(),
        |value| format!("{:.1}%", value * 100.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(value: Option<f64>, expected: f64) -> bool {
        value.is_some_and(|value| (value - expected).abs() < 1e-9)
    }

    #[test]
    fn reads_every_scanners_severity_words() {
        assert_eq!(Severity::parse("HIGH"), Some(Severity::High));
        assert_eq!(Severity::parse("critical"), Some(Severity::Critical));
        assert_eq!(Severity::parse(" Safe "), Some(Severity::Safe));
        assert_eq!(Severity::parse("severe"), None);
        assert_eq!(Severity::parse(""), None);
        assert!(Severity::High.flagged() && Severity::Critical.flagged());
        assert!(!Severity::Medium.flagged() && !Severity::Safe.flagged());
        for severity in Severity::ALL {
            assert_eq!(Severity::parse(severity.key()), Some(severity));
        }
    }

    #[test]
    fn scores_a_hand_counted_example() {
        // 10 malicious, 8 flagged; 20 benign, 2 flagged.
        let mut confusion = Confusion::default();
        for index in 0..10 {
            confusion.count(true, index < 8);
        }
        for index in 0..20 {
            confusion.count(false, index < 2);
        }
        assert_eq!(
            confusion,
            Confusion {
                true_positives: 8,
                false_positives: 2,
                true_negatives: 18,
                false_negatives: 2,
            }
        );
        // Precision 8 / 10, recall 8 / 10, F1 16 / 20.
        assert!(close(confusion.precision(), 0.8));
        assert!(close(confusion.recall(), 0.8));
        assert!(close(confusion.f1(), 0.8));
        assert!(close(confusion.false_positive_rate(), 0.1));
        assert_eq!(confusion.total(), 30);
        // Precision 3 / 4 and recall 3 / 9: F1 = 2·(3/4)·(1/3) / (3/4 + 1/3) = 6 / 13.
        let uneven = Confusion {
            true_positives: 3,
            false_positives: 1,
            true_negatives: 5,
            false_negatives: 6,
        };
        assert!(close(uneven.precision(), 0.75));
        assert!(close(uneven.recall(), 1.0 / 3.0));
        assert!(close(uneven.f1(), 6.0 / 13.0));
    }

    #[test]
    fn undefined_figures_are_none_not_zero_or_one() {
        let empty = Confusion::default();
        assert_eq!(empty.precision(), None);
        assert_eq!(empty.recall(), None);
        assert_eq!(empty.f1(), None);
        assert_eq!(empty.false_positive_rate(), None);
        // Nothing flagged among 5 malicious: precision undefined, recall and F1 zero.
        let silent = Confusion {
            false_negatives: 5,
            true_negatives: 5,
            ..Confusion::default()
        };
        assert_eq!(silent.precision(), None);
        assert!(close(silent.recall(), 0.0));
        assert!(close(silent.f1(), 0.0));
        assert!(close(silent.false_positive_rate(), 0.0));
        // Only benign, some flagged: recall undefined, precision and F1 zero.
        let benign = Confusion {
            false_positives: 2,
            true_negatives: 3,
            ..Confusion::default()
        };
        assert_eq!(benign.recall(), None);
        assert!(close(benign.precision(), 0.0));
        assert!(close(benign.f1(), 0.0));
        assert_eq!(share(1, 0), None);
        assert!(close(share(1, 4), 0.25));
        assert_eq!(figure(None), "n/a");
        assert_eq!(figure(Some(2.0 / 3.0)), "0.667");
        assert_eq!(percent(Some(0.047)), "4.7%");
    }
}
