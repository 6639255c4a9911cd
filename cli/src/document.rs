//! How a command prints its `--json` document: one of `pops_report`'s typed documents, as one
//! line of JSON on standard output.

/// `doc` as one line of JSON.
pub(crate) fn print_document(doc: &impl serde::Serialize) {
    match serde_json::to_string(doc) {
        Ok(line) => println!("{line}"),
        Err(e) => eprintln!("pops: the JSON document could not be written: {e}"),
    }
}
