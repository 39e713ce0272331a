//! Text written once and read in several places (a tool's output: the history, the events,
//! the session writer, the UI) without copies.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Immutable text whose clones share one buffer. Made from a `String`, it keeps that
/// `String` (an `Arc<str>` would copy it once more), so a tool's output is allocated once, by
/// the tool; made from a `&str`, it is one block. Serialises as a plain string; fields of
/// this type are `string` in TypeScript.
#[derive(Clone)]
pub struct SharedText(Repr);

#[derive(Clone)]
enum Repr {
    Copied(Arc<str>),
    Kept(Arc<String>),
}

impl SharedText {
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Copied(text) => text,
            Repr::Kept(text) => text,
        }
    }

    /// Whether both are the same buffer, not only equal text.
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        match (&a.0, &b.0) {
            (Repr::Copied(a), Repr::Copied(b)) => Arc::ptr_eq(a, b),
            (Repr::Kept(a), Repr::Kept(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The text as a `String`: the buffer itself when it was a `String` nothing else shares,
    /// else a copy.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Copied(text) => text.as_ref().to_owned(),
            Repr::Kept(text) => Arc::try_unwrap(text).unwrap_or_else(|shared| (*shared).clone()),
        }
    }
}

impl Default for SharedText {
    fn default() -> Self {
        Self::from("")
    }
}

impl Deref for SharedText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for SharedText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedText {}

impl AsRef<str> for SharedText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for SharedText {
    fn from(text: String) -> Self {
        Self(Repr::Kept(Arc::new(text)))
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> Self {
        Self(Repr::Copied(Arc::from(text)))
    }
}

impl From<SharedText> for String {
    fn from(text: SharedText) -> Self {
        text.into_string()
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SharedText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<SharedText> for str {
    fn eq(&self, other: &SharedText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SharedText> for &str {
    fn eq(&self, other: &SharedText) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<SharedText> for String {
    fn eq(&self, other: &SharedText) -> bool {
        self == other.as_str()
    }
}

impl Serialize for SharedText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SharedText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_buffer_the_string_had() {
        let text = "x".repeat(100);
        let at = text.as_ptr();
        let shared = SharedText::from(text);
        let copy = shared.clone();
        assert!(SharedText::ptr_eq(&shared, &copy));
        assert_eq!(copy.as_ptr(), at, "made from the String without a copy");
        drop(shared);
        let back = copy.into_string();
        assert_eq!(back.as_ptr(), at, "the last one gives it back");
        let copied = SharedText::from("short");
        assert!(SharedText::ptr_eq(&copied, &copied.clone()));
        assert!(!SharedText::ptr_eq(&copied, &SharedText::from("short")));
        assert_eq!(
            copied,
            SharedText::from("short".to_owned()),
            "equal by text"
        );
    }

    #[test]
    fn is_a_plain_string_on_the_wire_and_compares_with_strings() {
        let shared = SharedText::from("héllo \"x\"");
        let json = serde_json::to_string(&shared).unwrap();
        assert_eq!(json, r#""héllo \"x\"""#);
        let back: SharedText = serde_json::from_str(&json).unwrap();
        assert_eq!(back, shared);
        assert_eq!(back, "héllo \"x\"");
        assert_eq!("héllo \"x\"".to_owned(), back);
        assert_eq!(format!("{back:?}"), format!("{:?}", "héllo \"x\""));
    }
}
