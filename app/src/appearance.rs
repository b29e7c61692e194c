//! The settings that change how the page looks, applied to the document as soon as
//! the profile shows them: the theme (`data-theme`, read by the stylesheet's
//! `color-scheme`), the caret (`data-caret`) and the prompt's font size
//! (`--prompt-size`).

use crate::services::profile::ProfileService;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

/// Keeps the document's attributes in step with the profile's settings.
pub fn follow_settings() {
    let view = expect_context::<ProfileService>().view();
    Effect::new(move || {
        let Some(root) = document().document_element() else {
            return;
        };
        view.with(|v| {
            if !v.loaded {
                return;
            }
            let settings = &v.profile.settings;
            let _ = root.set_attribute("data-theme", settings.theme.id());
            let _ = root.set_attribute("data-caret", settings.caret.id());
            // Through the CSSOM: the page's CSP refuses style attributes.
            if let Some(root) = root.dyn_ref::<HtmlElement>() {
                let size = format!("{}px", settings.font_size);
                let _ = root.style().set_property("--prompt-size", &size);
            }
        });
    });
}
