//! The key click the "Sound on each key" setting asks for: a short, quiet tick made
//! with Web Audio (no sound file to fetch), on one audio context made at the first
//! key, since browsers allow audio only after a user gesture.

use std::cell::RefCell;
use web_sys::{AudioContext, OscillatorType};

thread_local! {
    static CONTEXT: RefCell<Option<AudioContext>> = const { RefCell::new(None) };
}

/// How long a click lasts, in seconds.
const LENGTH_S: f64 = 0.03;

/// Plays one click; silently nothing where Web Audio is unavailable.
pub fn play() {
    CONTEXT.with(|context| {
        let mut context = context.borrow_mut();
        if context.is_none() {
            *context = AudioContext::new().ok();
        }
        if let Some(context) = context.as_ref() {
            let _ = tick(context);
        }
    });
}

fn tick(context: &AudioContext) -> Result<(), wasm_bindgen::JsValue> {
    let now = context.current_time();
    let oscillator = context.create_oscillator()?;
    oscillator.set_type(OscillatorType::Square);
    oscillator.frequency().set_value(1_800.0);
    let gain = context.create_gain()?;
    gain.gain().set_value_at_time(0.04, now)?;
    gain.gain()
        .exponential_ramp_to_value_at_time(0.0001, now + LENGTH_S)?;
    oscillator.connect_with_audio_node(&gain)?;
    gain.connect_with_audio_node(&context.destination())?;
    oscillator.start()?;
    oscillator.stop_with_when(now + LENGTH_S)?;
    Ok(())
}
