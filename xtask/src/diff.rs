//! Readable differences between a committed file and its regenerated form.

use std::path::Path;

use similar::TextDiff;

/// A unified diff (three lines of context) from `committed` to `generated`.
pub fn unified_diff(path: &Path, committed: &str, generated: &str) -> String {
    let name = path.display();
    TextDiff::from_lines(committed, generated)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{name} (committed)"), &format!("{name} (generated)"))
        .to_string()
}
