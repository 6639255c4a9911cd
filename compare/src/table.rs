//! Plain-text tables whose columns are as wide as their widest cell, so that long names (a
//! pipeline the application named `interlock-pixel-ordered_noaa/colour`) never push the
//! columns after them out of line.

/// How a column's cells are aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// `rows` (the header first) as lines, each cell padded to its column's widest cell, columns
/// separated by `gap` spaces; the last column is not padded. Widths count characters. Pure.
pub fn render(rows: &[Vec<String>], align: &[Align], gap: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str(&" ".repeat(gap));
            }
            let pad = widths[c].saturating_sub(cell.chars().count());
            let last = c + 1 == row.len();
            match align.get(c).copied().unwrap_or(Align::Left) {
                Align::Right => {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                }
                Align::Left => {
                    line.push_str(cell);
                    if !last {
                        line.push_str(&" ".repeat(pad));
                    }
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|s| s.to_string()).collect()
    }

    /// Every column starts at the same character on every line, however long a name is.
    #[test]
    fn columns_line_up_whatever_the_content() {
        let rows = [
            row(&["#", "pipeline", "samples", "fields"]),
            row(&[
                "1",
                "pipeline 'interlock-pixel-ordered_noaa/colour'",
                "1",
                "A=1",
            ]),
            row(&["12", "p", "16", "B=2 C=3"]),
        ];
        let text = render(
            &rows,
            &[Align::Right, Align::Left, Align::Right, Align::Left],
            2,
        );
        let lines: Vec<&str> = text.lines().collect();
        let col = |l: &str, needle: &str| l.find(needle).unwrap();
        assert_eq!(col(lines[0], "fields"), col(lines[1], "A=1"));
        assert_eq!(col(lines[1], "A=1"), col(lines[2], "B=2"));
        // Right-aligned numbers end in the same column.
        assert_eq!(col(lines[0], "samples") + 7, col(lines[2], "16") + 2);
        assert!(lines.iter().all(|l| !l.ends_with(' ')));
    }
}
