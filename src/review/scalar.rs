//! Writing a string as a YAML scalar: plain when YAML reads it back
//! unchanged, double-quoted otherwise (colons, `#`, quotes, leading special
//! characters, words YAML would read as booleans, nulls or numbers).

/// Characters that cannot start a plain scalar.
const LEADING_SPECIAL: &[char] = &[
    '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`',
];

/// Writes `s` as a YAML scalar for a block context (`- title: <here>`), or
/// for a flow list (`aliases: [a, <here>]`) when `flow` is true.
pub fn yaml_scalar(s: &str, flow: bool) -> String {
    if plain_is_safe(s, flow) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

fn plain_is_safe(s: &str, flow: bool) -> bool {
    if s.is_empty()
        || s.trim() != s
        || s.starts_with(LEADING_SPECIAL)
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.contains(['\t', '\n', '\r', '\\'])
        || s.contains(char::is_control)
        || (flow && s.contains([',', '[', ']', '{', '}']))
    {
        return false;
    }
    // YAML 1.1 tools (PyYAML, spreadsheets' importers) read these as
    // booleans or null even where YAML 1.2 does not.
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~"
    ) {
        return false;
    }
    // YAML must read it back as the same string (not a bool, null, number).
    let probe = if flow {
        format!("[{s}]")
    } else {
        format!("k: {s}")
    };
    let Ok(v) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(&probe) else {
        return false;
    };
    let back = if flow {
        v.as_sequence().and_then(|q| q.first()).cloned()
    } else {
        v.get("k").cloned()
    };
    back.as_ref().and_then(|b| b.as_str()) == Some(s)
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::yaml_scalar;

    fn reads_back(s: &str, flow: bool) {
        let q = yaml_scalar(s, flow);
        let doc = if flow {
            format!("k: [{q}, other]")
        } else {
            format!("k: {q}")
        };
        let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(&doc).unwrap();
        let got = if flow { &v["k"][0] } else { &v["k"] };
        assert_eq!(got.as_str(), Some(s), "{s:?} written as {q}");
    }

    #[test]
    fn plain_when_safe_quoted_when_not() {
        assert_eq!(yaml_scalar("Types of Advances", false), "Types of Advances");
        assert_eq!(
            yaml_scalar("Interest Payment Dates; Interest and Fee Basis", false),
            "Interest Payment Dates; Interest and Fee Basis"
        );
        assert_eq!(yaml_scalar("Note: Fees", false), "\"Note: Fees\"");
        assert_eq!(yaml_scalar("Yes", false), "\"Yes\"");
        assert_eq!(yaml_scalar("Fees, Costs", true), "\"Fees, Costs\"");
        assert_eq!(yaml_scalar("Fees, Costs", false), "Fees, Costs");
    }

    #[test]
    fn every_tricky_title_reads_back_unchanged() {
        for s in [
            "Lender's Rights",
            "\"Quoted\" Terms",
            "Fees # and costs",
            "- dash",
            "@home",
            "Section: 2",
            "100",
            "null",
            "a\\b",
            "[Reserved]",
            "Taxes; Withholding {gross-up}",
            "Terms:",
        ] {
            reads_back(s, false);
            reads_back(s, true);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_printable_title_reads_back(s in "[ -~]{1,40}") {
            reads_back(&s, false);
            reads_back(&s, true);
        }

        #[test]
        fn an_added_entry_is_found_with_its_exact_title(s in "[A-Za-z][ -~]{0,30}") {
            let mut t = crate::review::IndexText::new("high:\n  - Litigation  # x\nlow: []\n");
            t.add_entry(crate::index::Tier::Low, &s, "added by review from d 0001").unwrap();
            let e = t.entries(crate::index::Tier::Low).unwrap();
            proptest::prop_assert_eq!(&e[0].title, &s);
        }
    }
}
