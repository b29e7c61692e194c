//! The API's documents name every error code the API can answer with: the prose in
//! `docs/api.md` and the OpenAPI document served at `/api/openapi.json`.

use keydo_core::api::{ApiCode, IDEMPOTENCY_KEY_HEADER};

fn read(path: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn both_documents_name_every_error_code() {
    let prose = read("../docs/api.md");
    let openapi = read("openapi.json");
    serde_json::from_str::<serde_json::Value>(&openapi).expect("openapi.json is JSON");
    for code in ApiCode::ALL {
        let quoted = format!("`{code}`");
        assert!(
            prose.contains(&quoted),
            "docs/api.md does not name {quoted}"
        );
        assert!(
            openapi.contains(code.as_str()),
            "openapi.json does not name {code}"
        );
    }
}

#[test]
fn the_openapi_document_describes_the_idempotency_key_and_the_bests() {
    let openapi: serde_json::Value = serde_json::from_str(&read("openapi.json")).unwrap();
    let create = &openapi["paths"]["/api/saves"]["post"];
    let parameters = create["parameters"].as_array().expect("parameters");
    assert!(
        parameters
            .iter()
            .any(|p| p["name"] == IDEMPOTENCY_KEY_HEADER && p["in"] == "header"),
        "{parameters:?}"
    );
    for status in ["201", "400", "422", "429"] {
        assert!(create["responses"][status].is_object(), "{status}");
    }
    let save = &openapi["components"]["schemas"]["Save"];
    for field in ["week", "bests", "optionBests"] {
        assert!(
            save["required"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f == field),
            "{field}"
        );
    }
}
