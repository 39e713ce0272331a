//! The walker over commands the fast reading split ([`super::super::fast::split`]): the same
//! word reading and checks as the full grammar's walk.

use super::super::fast::{Item, Simple};
use super::{Stdin, Walker};
use crate::error::ParseError;

impl Walker {
    /// Walks commands read by [`split`], in the order the grammar's walk takes them:
    /// redirections and words as they come, then leading assignments, then the command.
    pub(crate) fn simple_commands(
        &mut self,
        text: &str,
        commands: Vec<Simple<'_>>,
    ) -> Result<(), ParseError> {
        for cmd in commands {
            let ctx = text[cmd.start..cmd.end].trim_end();
            let mut words = Vec::with_capacity(cmd.items.len());
            let mut assignments = Vec::new();
            for item in cmd.items {
                match item {
                    Item::Assign { name, value } => assignments.push((name, value)),
                    Item::Word(raw) => words.push(self.word(raw, &ctx)?),
                    Item::Redirect { target, dup } => self.file_redirect(target, dup, &ctx)?,
                }
            }
            for (name, value) in assignments {
                self.scalar_assignment(name, value, &ctx)?;
            }
            if !words.is_empty() {
                let stdin = Stdin {
                    doc: false,
                    piped: cmd.piped,
                };
                self.command(words, &ctx, stdin)?;
            }
        }
        Ok(())
    }
}
