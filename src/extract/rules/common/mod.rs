//! The layer every reader of the rules stands on: text cleaning and
//! paragraphs, references and quotes (`text`), and the section's own
//! identity (`own`), party roles (`roles`). It imports no reader, so a reader can use any of it
//! without tying itself to another reader.

pub(super) mod builder;
pub(super) mod clause;
pub(super) mod names;
pub(super) mod orgs;
pub(super) mod own;
pub(super) mod roles;
pub(super) mod terms;
pub(super) mod text;
pub(super) mod values;
