//! Generates the prost messages, the tonic client (and, with the `server` feature, the server) and
//! the pbjson ProtoJSON impls from the normative proto in `proto/a2a.proto`, which ships inside this
//! package so that the published crate builds on its own. (`a2a-typestate-types` keeps an identical
//! copy for its proto coverage test; a workspace test checks the two never differ.)
//!
//! The proto imports `google/api/{annotations,client,field_behavior}.proto` only for options (the
//! HTTP mapping, method signatures, REQUIRED markers) that change nothing in the messages or the
//! service. protoc ships no googleapis, so the build compiles a copy of the proto with those imports
//! and options taken out; the original is left as it is.

use std::path::PathBuf;

const PROTO: &str = "proto/a2a.proto";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed={PROTO}");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let source = std::fs::read_to_string(PROTO)?;
    let stripped_dir = out.join("proto");
    std::fs::create_dir_all(&stripped_dir)?;
    let stripped = stripped_dir.join("a2a.proto");
    std::fs::write(&stripped, without_google_api(&source))?;

    let descriptors = out.join("a2a_descriptor.bin");
    let mut config = prost_build::Config::new();
    config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    // The well-known types come from pbjson-types (with their ProtoJSON forms), not prost-types.
    config.compile_well_known_types();
    let include = protoc_bin_vendored::include_path()?;
    let server = std::env::var_os("CARGO_FEATURE_SERVER").is_some();
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(server)
        // docs.rs labels the generated server with the feature that brings it.
        .server_mod_attribute(".", r#"#[cfg_attr(docsrs, doc(cfg(feature = "server")))]"#)
        .build_transport(false)
        .file_descriptor_set_path(&descriptors)
        .extern_path(".google.protobuf", "::pbjson_types")
        .compile_with_config(config, &[stripped.as_path()], &[stripped_dir.as_path(), include.as_path()])?;

    let set = std::fs::read(&descriptors)?;
    pbjson_build::Builder::new()
        .register_descriptors(&set)?
        .ignore_unknown_fields()
        .build(&[".lf.a2a.v1"])?;
    Ok(())
}

/// The proto without its `google.api` imports, `option (google.api...) = ...;` statements (which
/// may span lines, with braces) and `[(google.api.field_behavior) = ...]` field options.
fn without_google_api(source: &str) -> String {
    let mut kept = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(start) = rest.find("option (google.api.") {
        kept.push_str(&rest[..start]);
        let statement = &rest[start..];
        let mut depth = 0_i32;
        let mut end = statement.len();
        for (i, c) in statement.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &statement[end..];
    }
    kept.push_str(rest);
    let kept: Vec<&str> =
        kept.lines().filter(|line| !line.trim_start().starts_with("import \"google/api/")).collect();
    let mut text = kept.join("\n");
    while let Some(start) = text.find(" [(google.api.field_behavior)") {
        let end = text[start..].find(']').map_or(text.len(), |i| start + i + 1);
        text.replace_range(start..end, "");
    }
    text
}
