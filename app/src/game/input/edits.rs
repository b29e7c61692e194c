//! Which [`Edit`] an input event asks for: pure, so every browser's event shapes are
//! tested natively. The component reads the event's fields and calls these.

use keydo_core::Edit;

/// What to do with one `beforeinput` event.
#[derive(Debug, Clone, PartialEq)]
pub struct BeforeInput {
    /// The edit the game applies, if it handles the event.
    pub edit: Option<Edit>,
    /// Whether the browser's own action is cancelled (so the field stays empty).
    pub cancel: bool,
}

/// A `beforeinput` of `input_type` carrying `data`. Inside a composition everything
/// belongs to the IME.
pub fn beforeinput(input_type: &str, data: Option<String>, is_composing: bool) -> BeforeInput {
    let handled = |edit| BeforeInput {
        edit: Some(edit),
        cancel: true,
    };
    let ignored = |cancel| BeforeInput { edit: None, cancel };
    if is_composing {
        return ignored(false);
    }
    match input_type {
        "insertText" | "insertReplacementText" => handled(Edit::Commit(data.unwrap_or_default())),
        "deleteContentBackward" => handled(Edit::Backspace),
        "deleteWordBackward" | "deleteSoftLineBackward" => handled(Edit::DeleteWord),
        // Composition text is the IME's to show.
        "insertCompositionText" => ignored(false),
        // Pasting, dropping, line breaks, forward deletes: not part of typing.
        _ => ignored(true),
    }
}

/// A `keydown` of `key`: only Backspace is taken here (an empty field fires no
/// `beforeinput` for it); with Ctrl or Alt it deletes the word. The caller cancels the
/// browser's action when this returns an edit.
pub fn keydown(key: &str, ctrl_or_alt: bool, is_composing: bool) -> Option<Edit> {
    let edit = if ctrl_or_alt {
        Edit::DeleteWord
    } else {
        Edit::Backspace
    };
    (key == "Backspace" && !is_composing).then_some(edit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    #[test]
    fn typed_and_replaced_text_commits_and_keeps_the_field_empty() {
        for input_type in ["insertText", "insertReplacementText"] {
            assert_eq!(
                beforeinput(input_type, text("a"), false),
                BeforeInput {
                    edit: Some(Edit::Commit("a".into())),
                    cancel: true
                }
            );
        }
        // Some virtual keyboards send no data: nothing is typed, nothing breaks.
        assert_eq!(
            beforeinput("insertText", None, false).edit,
            Some(Edit::Commit(String::new()))
        );
    }

    #[test]
    fn deletes_backward_map_to_backspace_and_delete_word() {
        let edit = |t| beforeinput(t, None, false);
        assert_eq!(edit("deleteContentBackward").edit, Some(Edit::Backspace));
        assert_eq!(edit("deleteWordBackward").edit, Some(Edit::DeleteWord));
        assert_eq!(edit("deleteSoftLineBackward").edit, Some(Edit::DeleteWord));
        assert!(edit("deleteContentBackward").cancel);
    }

    #[test]
    fn the_ime_owns_everything_inside_a_composition() {
        for input_type in [
            "insertText",
            "deleteContentBackward",
            "insertCompositionText",
        ] {
            assert_eq!(
                beforeinput(input_type, text("ni"), true),
                BeforeInput {
                    edit: None,
                    cancel: false
                },
                "{input_type}"
            );
        }
        // Composition text outside `isComposing` (some browsers) is still the IME's.
        assert_eq!(
            beforeinput("insertCompositionText", text("n"), false),
            BeforeInput {
                edit: None,
                cancel: false
            }
        );
    }

    #[test]
    fn pastes_drops_and_line_breaks_are_refused() {
        for input_type in [
            "insertFromPaste",
            "insertFromDrop",
            "insertLineBreak",
            "insertParagraph",
            "deleteContentForward",
            "historyUndo",
        ] {
            assert_eq!(
                beforeinput(input_type, text("pasted"), false),
                BeforeInput {
                    edit: None,
                    cancel: true
                },
                "{input_type}"
            );
        }
    }

    #[test]
    fn backspace_keys_delete_outside_a_composition_only() {
        assert_eq!(keydown("Backspace", false, false), Some(Edit::Backspace));
        assert_eq!(keydown("Backspace", true, false), Some(Edit::DeleteWord));
        assert_eq!(keydown("Backspace", false, true), None);
        assert_eq!(keydown("a", false, false), None);
        // Virtual keyboards often send "Unidentified": `beforeinput` handles those.
        assert_eq!(keydown("Unidentified", false, false), None);
    }
}
