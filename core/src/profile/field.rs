//! The profile's fields one by one (docs/profile.md): the profile itself, a set of
//! changed fields as it travels in an operation, and the per-field view the conflict
//! policies work on.

use super::settings::{Caret, FONT_SIZES, INPUT_METHOD_MAX_CHARS, Settings, Theme};
use crate::game::mode::Mode;
use crate::names::{
    DISPLAY_NAME_CHARS, DisplayName, MAX_MARKS_PER_CLUSTER, NameError, has_refused_character,
};
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

/// The most code points one grapheme cluster of a valid name or label holds: a base
/// and its marks. A text with more code points than clusters allowed times this can
/// be refused without Unicode's tables.
const MAX_CHARS_PER_CLUSTER: usize = 1 + MAX_MARKS_PER_CLUSTER;

/// What follows the player from device to device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub display_name: String,
    #[serde(default)]
    pub settings: Settings,
}

impl Profile {
    /// A profile with this name and default settings.
    pub fn named(display_name: impl Into<String>) -> Profile {
        Profile {
            display_name: display_name.into(),
            settings: Settings::default(),
        }
    }

    /// The field's current value.
    pub fn get(&self, field: Field) -> FieldValue {
        let s = &self.settings;
        match field {
            Field::DisplayName => FieldValue::DisplayName(self.display_name.clone()),
            Field::Theme => FieldValue::Theme(s.theme),
            Field::Caret => FieldValue::Caret(s.caret),
            Field::Sound => FieldValue::Sound(s.sound),
            Field::FontSize => FieldValue::FontSize(s.font_size),
            Field::PreferredMode => FieldValue::PreferredMode(s.preferred_mode),
            Field::InputMethod => FieldValue::InputMethod(s.input_method.clone()),
        }
    }

    /// Sets one field.
    pub fn set(&mut self, value: FieldValue) {
        let s = &mut self.settings;
        match value {
            FieldValue::DisplayName(name) => self.display_name = name,
            FieldValue::Theme(theme) => s.theme = theme,
            FieldValue::Caret(caret) => s.caret = caret,
            FieldValue::Sound(sound) => s.sound = sound,
            FieldValue::FontSize(size) => s.font_size = size,
            FieldValue::PreferredMode(mode) => s.preferred_mode = mode,
            FieldValue::InputMethod(label) => s.input_method = label,
        }
    }

    /// This profile with `changes` applied.
    pub fn with(&self, changes: &Changes) -> Profile {
        let mut profile = self.clone();
        for value in changes.values() {
            profile.set(value);
        }
        profile
    }

    /// The current values of the fields `changes` names: the `base` of an operation
    /// that makes those changes to this profile.
    pub fn base_for(&self, changes: &Changes) -> Changes {
        changes
            .fields()
            .into_iter()
            .map(|field| self.get(field))
            .collect()
    }
}

/// One field of the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Field {
    DisplayName,
    Theme,
    Caret,
    Sound,
    FontSize,
    PreferredMode,
    InputMethod,
}

impl Field {
    pub const ALL: [Field; 7] = [
        Field::DisplayName,
        Field::Theme,
        Field::Caret,
        Field::Sound,
        Field::FontSize,
        Field::PreferredMode,
        Field::InputMethod,
    ];

    /// What people call the field.
    pub fn label(self) -> &'static str {
        match self {
            Field::DisplayName => "name",
            Field::Theme => "theme",
            Field::Caret => "caret",
            Field::Sound => "key sound",
            Field::FontSize => "font size",
            Field::PreferredMode => "preferred mode",
            Field::InputMethod => "input method",
        }
    }
}

/// One field with its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    DisplayName(String),
    Theme(Theme),
    Caret(Caret),
    Sound(bool),
    FontSize(u8),
    PreferredMode(Mode),
    InputMethod(String),
}

impl FieldValue {
    pub fn field(&self) -> Field {
        match self {
            FieldValue::DisplayName(_) => Field::DisplayName,
            FieldValue::Theme(_) => Field::Theme,
            FieldValue::Caret(_) => Field::Caret,
            FieldValue::Sound(_) => Field::Sound,
            FieldValue::FontSize(_) => Field::FontSize,
            FieldValue::PreferredMode(_) => Field::PreferredMode,
            FieldValue::InputMethod(_) => Field::InputMethod,
        }
    }
}

/// Some fields with values: what an operation changes, or the values it saw before
/// (its `base`). On the wire it has the profile's shape with only those fields:
/// `{"displayName": "Ann", "settings": {"theme": "dark"}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Changes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "SettingsChanges::is_empty")]
    pub settings: SettingsChanges,
}

/// The settings part of [`Changes`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caret: Option<Caret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sound: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font_size: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_mode: Option<Mode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_method: Option<String>,
}

impl SettingsChanges {
    pub fn is_empty(&self) -> bool {
        *self == SettingsChanges::default()
    }
}

impl Changes {
    /// The named fields with their values, in [`Field::ALL`] order.
    pub fn values(&self) -> Vec<FieldValue> {
        let s = &self.settings;
        [
            self.display_name.clone().map(FieldValue::DisplayName),
            s.theme.map(FieldValue::Theme),
            s.caret.map(FieldValue::Caret),
            s.sound.map(FieldValue::Sound),
            s.font_size.map(FieldValue::FontSize),
            s.preferred_mode.map(FieldValue::PreferredMode),
            s.input_method.clone().map(FieldValue::InputMethod),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The named fields.
    pub fn fields(&self) -> Vec<Field> {
        self.values().iter().map(FieldValue::field).collect()
    }

    /// The value of `field`, if named.
    pub fn get(&self, field: Field) -> Option<FieldValue> {
        self.values()
            .into_iter()
            .find(|value| value.field() == field)
    }

    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }

    /// Names `value`'s field with that value.
    pub fn insert(&mut self, value: FieldValue) {
        let s = &mut self.settings;
        match value {
            FieldValue::DisplayName(name) => self.display_name = Some(name),
            FieldValue::Theme(theme) => s.theme = Some(theme),
            FieldValue::Caret(caret) => s.caret = Some(caret),
            FieldValue::Sound(sound) => s.sound = Some(sound),
            FieldValue::FontSize(size) => s.font_size = Some(size),
            FieldValue::PreferredMode(mode) => s.preferred_mode = Some(mode),
            FieldValue::InputMethod(label) => s.input_method = Some(label),
        }
    }

    /// The checks a page can make without Unicode's tables (they would double the
    /// page's size): something to change, a name and label trimmed and not too long
    /// in characters, the font size within [`FONT_SIZES`]. The server then applies
    /// [`Changes::validated`]; what it refuses comes back as a refusal to show.
    pub fn checked(&self) -> Result<Changes, ChangeError> {
        if self.is_empty() {
            return Err(ChangeError::Empty);
        }
        let mut checked = self.clone();
        if let Some(name) = &self.display_name {
            let name = name.trim();
            let chars = name.chars().count();
            if chars == 0 || chars > MAX_CHARS_PER_CLUSTER * DISPLAY_NAME_CHARS.end() {
                return Err(ChangeError::Name(NameError::Length(chars)));
            }
            checked.display_name = Some(name.to_owned());
        }
        if let Some(size) = self.settings.font_size
            && !FONT_SIZES.contains(&size)
        {
            return Err(ChangeError::FontSize(size));
        }
        if let Some(label) = &self.settings.input_method {
            let label = label.trim();
            if label.chars().count() > MAX_CHARS_PER_CLUSTER * INPUT_METHOD_MAX_CHARS {
                return Err(ChangeError::InputMethod);
            }
            checked.settings.input_method = Some(label.to_owned());
        }
        Ok(checked)
    }

    /// The changes a player may ask for, normalised: [`Changes::checked`], then the name
    /// by the naming rules and the input-method label at most
    /// [`INPUT_METHOD_MAX_CHARS`] clusters of the characters a name may hold.
    pub fn validated(&self) -> Result<Changes, ChangeError> {
        let mut valid = self.checked()?;
        if let Some(name) = &valid.display_name {
            valid.display_name = Some(
                DisplayName::parse(name)
                    .map_err(ChangeError::Name)?
                    .into_string(),
            );
        }
        if let Some(label) = &valid.settings.input_method
            && (label.graphemes(true).count() > INPUT_METHOD_MAX_CHARS
                || has_refused_character(label))
        {
            return Err(ChangeError::InputMethod);
        }
        Ok(valid)
    }
}

impl FromIterator<FieldValue> for Changes {
    fn from_iter<I: IntoIterator<Item = FieldValue>>(values: I) -> Self {
        let mut changes = Changes::default();
        for value in values {
            changes.insert(value);
        }
        changes
    }
}

/// Why a change is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeError {
    /// The operation changes nothing.
    Empty,
    Name(NameError),
    FontSize(u8),
    InputMethod,
}

impl std::fmt::Display for ChangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChangeError::Empty => f.write_str("The change changes nothing."),
            ChangeError::Name(error) => error.fmt(f),
            ChangeError::FontSize(size) => write!(
                f,
                "A font size of {size} px is outside {}–{} px.",
                FONT_SIZES.start(),
                FONT_SIZES.end()
            ),
            ChangeError::InputMethod => write!(
                f,
                "An input method's name has at most {INPUT_METHOD_MAX_CHARS} characters, and none a name may not hold."
            ),
        }
    }
}

impl std::error::Error for ChangeError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changes_travel_in_the_profiles_shape_with_only_their_fields() {
        let changes: Changes = [
            FieldValue::DisplayName("Ann".into()),
            FieldValue::Theme(Theme::Dark),
        ]
        .into_iter()
        .collect();
        let wire = json!({ "displayName": "Ann", "settings": { "theme": "dark" } });
        assert_eq!(serde_json::to_value(&changes).unwrap(), wire);
        assert_eq!(serde_json::from_value::<Changes>(wire).unwrap(), changes);
        assert_eq!(serde_json::to_value(Changes::default()).unwrap(), json!({}));
        assert!(serde_json::from_value::<Changes>(json!({ "settings": { "colour": 1 } })).is_err());
    }

    #[test]
    fn every_field_round_trips_through_a_profile_and_changes() {
        let values = [
            FieldValue::DisplayName("Бо".into()),
            FieldValue::Theme(Theme::Light),
            FieldValue::Caret(Caret::Block),
            FieldValue::Sound(true),
            FieldValue::FontSize(28),
            FieldValue::PreferredMode(Mode::Zh),
            FieldValue::InputMethod("键道".into()),
        ];
        let changes: Changes = values.iter().cloned().collect();
        assert_eq!(changes.values(), values);
        assert_eq!(changes.fields(), Field::ALL);
        let profile = Profile::named("x").with(&changes);
        for value in &values {
            assert_eq!(&profile.get(value.field()), value);
        }
        assert_eq!(profile.base_for(&changes), changes);
    }

    #[test]
    fn a_profile_without_settings_reads_with_the_defaults() {
        let profile: Profile = serde_json::from_value(json!({ "displayName": "Ann" })).unwrap();
        assert_eq!(profile, Profile::named("Ann"));
        let partial: Profile = serde_json::from_value(
            json!({ "displayName": "Ann", "settings": { "sound": true, "later": 1 } }),
        )
        .unwrap();
        assert!(partial.settings.sound);
        assert_eq!(partial.settings.font_size, Settings::default().font_size);
    }

    #[test]
    fn the_pages_check_refuses_only_what_validation_would_and_trims() {
        let name = |raw: &str| Changes {
            display_name: Some(raw.into()),
            ..Changes::default()
        };
        assert_eq!(
            name("  Ann ").checked().unwrap().display_name.as_deref(),
            Some("Ann")
        );
        assert!(matches!(name("   ").checked(), Err(ChangeError::Name(_))));
        assert!(matches!(
            name(&"x".repeat(121)).checked(),
            Err(ChangeError::Name(_))
        ));
        // 24 clusters of a base and four marks: valid, and not refused by the check.
        let marked = "e\u{301}\u{302}\u{303}\u{304}".repeat(24);
        assert!(name(&marked).checked().is_ok());
        assert!(name(&marked).validated().is_ok());
        // What only the tables can tell is left to validation.
        assert!(name("a\u{202E}b").checked().is_ok());
        assert!(name("a\u{202E}b").validated().is_err());
    }

    #[test]
    fn validation_normalises_names_and_labels_and_refuses_the_rest() {
        let name = |raw: &str| Changes {
            display_name: Some(raw.into()),
            ..Changes::default()
        };
        assert_eq!(
            name("  Ann   Lee ")
                .validated()
                .unwrap()
                .display_name
                .as_deref(),
            Some("Ann Lee")
        );
        assert!(matches!(
            name("a\u{202E}b").validated(),
            Err(ChangeError::Name(_))
        ));
        assert_eq!(Changes::default().validated(), Err(ChangeError::Empty));
        let setting = |value| std::iter::once(value).collect::<Changes>().validated();
        assert!(setting(FieldValue::FontSize(14)).is_ok());
        assert!(setting(FieldValue::FontSize(32)).is_ok());
        assert_eq!(
            setting(FieldValue::FontSize(13)),
            Err(ChangeError::FontSize(13))
        );
        assert_eq!(
            setting(FieldValue::FontSize(33)),
            Err(ChangeError::FontSize(33))
        );
        assert_eq!(
            setting(FieldValue::InputMethod(" 小鹤双拼 ".into()))
                .unwrap()
                .settings
                .input_method
                .as_deref(),
            Some("小鹤双拼")
        );
        assert!(setting(FieldValue::InputMethod(String::new())).is_ok());
        assert_eq!(
            setting(FieldValue::InputMethod("五".repeat(17))),
            Err(ChangeError::InputMethod)
        );
        assert_eq!(
            setting(FieldValue::InputMethod("a\u{0}b".into())),
            Err(ChangeError::InputMethod)
        );
    }
}
