//! A YAML tree that knows where each node is written.
//!
//! `serde_yaml_ng` values carry no positions, and searching the raw text for
//! a value finds it in a comment or in another entry. This tree is built from
//! the events of `saphyr-parser`, which come with line and column, and keeps
//! every mapping key in order, duplicates included (a hash map would drop
//! the duplicate `high:` that `index check` must point at). It converts to a
//! `serde_yaml_ng::Value` (first key wins) for the checks and the
//! deserialisation that follow.

use saphyr_parser::{Event, Parser, ScalarStyle, Span};
use serde_yaml_ng::{Mapping, Number, Value};
use std::collections::HashMap;

/// One node, at its 1-based line and column.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub line: usize,
    pub col: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// The text, and whether it was plain (unquoted, so `1` is a number).
    Scalar(String, bool),
    Seq(Vec<Node>),
    /// Keys in file order, duplicates kept.
    Map(Vec<(Node, Node)>),
}

/// A key repeated in one mapping: the mapping's path (`match`, empty at top
/// level), the key, where the repeat is and where the key first appeared.
pub type Duplicate = (String, String, (usize, usize), (usize, usize));

/// A syntax error at a 1-based line and column.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

fn at(span: &Span) -> (usize, usize) {
    (span.start.line(), span.start.col() + 1)
}

/// Parses the first document of `text`; `None` for an empty file.
/// The text first passes [`crate::index::yaml_guard::check`]: this tree
/// clones an anchor's node at every alias, so an unbounded file would
/// exhaust memory here.
pub fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    crate::index::yaml_guard::check(text).map_err(|e| SyntaxError {
        line: e.line,
        col: e.col,
        message: e.message,
    })?;
    let mut stack: Vec<(Node, Option<Node>)> = Vec::new();
    let mut anchors: HashMap<usize, Node> = HashMap::new();
    let mut anchor_of: Vec<usize> = Vec::new();
    let mut root = None;
    for ev in Parser::new_from_str(text) {
        let (ev, span) = ev.map_err(|e| SyntaxError {
            line: e.marker().line(),
            col: e.marker().col() + 1,
            message: crate::index::yaml_guard::one_line(e.info()),
        })?;
        let (line, col) = at(&span);
        let done = match ev {
            Event::Scalar(v, style, anchor, _) => {
                let node = Node {
                    line,
                    col,
                    kind: Kind::Scalar(v.into_owned(), style == ScalarStyle::Plain),
                };
                if anchor > 0 {
                    anchors.insert(anchor, node.clone());
                }
                Some(node)
            }
            Event::Alias(id) => Some(anchors.get(&id).cloned().unwrap_or(Node {
                line,
                col,
                kind: Kind::Scalar(String::new(), true),
            })),
            Event::SequenceStart(anchor, _) => {
                anchor_of.push(anchor);
                stack.push((
                    Node {
                        line,
                        col,
                        kind: Kind::Seq(Vec::new()),
                    },
                    None,
                ));
                None
            }
            Event::MappingStart(anchor, _) => {
                anchor_of.push(anchor);
                stack.push((
                    Node {
                        line,
                        col,
                        kind: Kind::Map(Vec::new()),
                    },
                    None,
                ));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (node, _) = stack.pop().expect("balanced events");
                let anchor = anchor_of.pop().unwrap_or(0);
                if anchor > 0 {
                    anchors.insert(anchor, node.clone());
                }
                Some(node)
            }
            Event::DocumentEnd => break,
            _ => None,
        };
        let Some(node) = done else { continue };
        match stack.last_mut() {
            None => {
                root = Some(node);
            }
            Some((parent, pending)) => match &mut parent.kind {
                Kind::Seq(items) => items.push(node),
                Kind::Map(pairs) => match pending.take() {
                    None => *pending = Some(node),
                    Some(key) => pairs.push((key, node)),
                },
                Kind::Scalar(..) => unreachable!("a scalar has no children"),
            },
        }
    }
    Ok(root)
}

impl Node {
    /// The text of a scalar (also for keys).
    pub fn text(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar(s, _) => Some(s),
            _ => None,
        }
    }

    /// The value under `key` (first occurrence) of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The key node and value of `key` (first occurrence) of a mapping.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        match &self.kind {
            Kind::Map(pairs) => pairs
                .iter()
                .find(|(k, _)| k.text() == Some(key))
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    /// The items of a sequence (empty otherwise).
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Seq(items) => items,
            _ => &[],
        }
    }

    pub fn pos(&self) -> (usize, usize) {
        (self.line, self.col)
    }

    /// Every key that repeats an earlier key of the same mapping, anywhere
    /// in the tree: (path of the mapping, key, the duplicate, the first).
    pub fn duplicate_keys(&self) -> Vec<Duplicate> {
        let mut out = Vec::new();
        self.collect_duplicates("", &mut out);
        out
    }

    fn collect_duplicates(&self, path: &str, out: &mut Vec<Duplicate>) {
        match &self.kind {
            Kind::Scalar(..) => {}
            Kind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    item.collect_duplicates(&format!("{path}[{i}]"), out);
                }
            }
            Kind::Map(pairs) => {
                let mut first: HashMap<String, (usize, usize)> = HashMap::new();
                for (k, v) in pairs {
                    let name = k
                        .text()
                        .map_or_else(|| format!("{:?}", k.kind), str::to_string);
                    if let Some(f) = first.get(&name) {
                        out.push((path.to_string(), name.clone(), k.pos(), *f));
                    } else {
                        first.insert(name.clone(), k.pos());
                    }
                    let child = if path.is_empty() {
                        name
                    } else {
                        format!("{path}.{name}")
                    };
                    v.collect_duplicates(&child, out);
                }
            }
        }
    }

    /// The value as `serde_yaml_ng` would read it (YAML 1.2 core schema for
    /// plain scalars; the first of duplicate keys wins).
    pub fn to_value(&self) -> Value {
        match &self.kind {
            Kind::Scalar(s, plain) => {
                if *plain {
                    resolve_plain(s)
                } else {
                    Value::String(s.clone())
                }
            }
            Kind::Seq(items) => Value::Sequence(items.iter().map(Node::to_value).collect()),
            Kind::Map(pairs) => {
                let mut m = Mapping::new();
                for (k, v) in pairs {
                    let key = k.to_value();
                    if !m.contains_key(&key) {
                        m.insert(key, v.to_value());
                    }
                }
                Value::Mapping(m)
            }
        }
    }
}

/// A plain scalar by the YAML 1.2 core schema: null, bool, int, float, or
/// a string.
fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Number(f64::INFINITY.into())
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Number(f64::NEG_INFINITY.into()),
        ".nan" | ".NaN" | ".NAN" => return Value::Number(f64::NAN.into()),
        _ => {}
    }
    let int = if let Some(h) = s.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = s.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if s
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b'-' || b == b'+')
        && s.bytes().any(|b| b.is_ascii_digit())
    {
        s.parse::<i64>().ok()
    } else {
        None
    };
    if let Some(i) = int {
        return Value::Number(Number::from(i));
    }
    let looks_float = s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && s.bytes().any(|b| b.is_ascii_digit());
    if looks_float {
        if let Ok(f) = s.parse::<f64>() {
            return Value::Number(f.into());
        }
    }
    Value::String(s.to_string())
}

/// A value written back as one line of YAML (`[1, 2]`, `{a: b}`, `"x"`), for
/// messages that quote what the file says.
pub fn inline_yaml(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Sequence(items) => format!(
            "[{}]",
            items.iter().map(inline_yaml).collect::<Vec<_>>().join(", ")
        ),
        Value::Mapping(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", inline_yaml(k), inline_yaml(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Tagged(t) => format!("{} {}", t.tag, inline_yaml(&t.value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_duplicates_and_values() {
        let text = "# high: in a comment\ndocument_type: x\nhigh:\n  - Notices\n  - title: Taxes\n    aliases: [Tax]\nlow: [A, 'B']\nhigh:\n  - Liens\nversion: 2\n";
        let root = parse(text).unwrap().unwrap();
        let (k, v) = root.entry("high").unwrap();
        assert_eq!(k.pos(), (3, 1));
        assert_eq!(v.items()[1].pos(), (5, 5));
        assert_eq!(
            v.items()[1].get("aliases").unwrap().items()[0].pos(),
            (6, 15)
        );
        let d = root.duplicate_keys();
        assert_eq!(d, vec![(String::new(), "high".into(), (8, 1), (3, 1))]);
        let value = root.to_value();
        assert_eq!(value["high"][0].as_str(), Some("Notices"), "first key wins");
        assert_eq!(value["version"].as_u64(), Some(2));
        assert_eq!(value["low"][1].as_str(), Some("B"));
        assert_eq!(inline_yaml(&value["low"]), "[A, B]");
        assert_eq!(
            inline_yaml(&value["high"][1]),
            "{title: Taxes, aliases: [Tax]}"
        );
    }

    #[test]
    fn scalars_resolve_like_serde_yaml() {
        for text in [
            "k: 0.82", "k: ~", "k: '1'", "k: yes", "k: 1e3", "k: -7", "k: 1.5.2",
        ] {
            let ours = parse(text).unwrap().unwrap().to_value();
            let theirs: Value = serde_yaml_ng::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let e = parse("high:\n  - a\n - b\n").unwrap_err();
        assert!(e.line >= 2, "{e:?}");
    }
}
