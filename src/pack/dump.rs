//! Python repr and dict dumps as key=value maps: `ServerArgs(tp_size=8,
//! model_path='x', ...)`, `{'tp_size': 8, ...}`, JSON objects. Engines
//! reorder, add and drop fields between releases, so fields are looked up
//! by name, never by position. One pass, linear in the text; nested values
//! (lists, dicts, nested reprs) are kept raw.

/// The top-level fields of the dump that starts at `text` (with `Name(` or
/// `{`), in print order, values unquoted. A field cut off (a truncated line)
/// is left out rather than returned half.
pub(crate) fn fields(text: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(open) = text.iter().position(|&b| b == b'(' || b == b'{') else {
        return out;
    };
    // `Name(` must be a bare identifier in front of the parenthesis.
    if text[open] == b'('
        && !text[..open]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        return out;
    }
    let close = if text[open] == b'(' { b')' } else { b'}' };
    let mut i = open + 1;
    loop {
        while i < text.len() && (text[i] == b' ' || text[i] == b',') {
            i += 1;
        }
        if i >= text.len() || text[i] == close {
            return out;
        }
        // The key: `name=` (repr) or `'name': ` / `"name": ` (dict, JSON).
        let (key, after) = match text[i] {
            b'\'' | b'"' => {
                let Some(end) = string_end(text, i) else {
                    return out;
                };
                let key = &text[i + 1..end - 1];
                let mut j = end;
                while j < text.len() && text[j] == b' ' {
                    j += 1;
                }
                if text.get(j) != Some(&b':') {
                    return out;
                }
                (key, j + 1)
            }
            _ => {
                let start = i;
                while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                    i += 1;
                }
                if i == start || text.get(i) != Some(&b'=') {
                    return out;
                }
                (&text[start..i], i + 1)
            }
        };
        let mut j = after;
        while j < text.len() && text[j] == b' ' {
            j += 1;
        }
        let Some(end) = value_end(text, j, close) else {
            return out;
        };
        let raw = trim(&text[j..end]);
        out.push((
            String::from_utf8_lossy(key).into_owned(),
            String::from_utf8_lossy(unquote(raw)).into_owned(),
        ));
        i = end;
    }
}

/// End (exclusive) of the quoted string that opens at `at`, honouring
/// backslash escapes; None if the text ends first.
fn string_end(text: &[u8], at: usize) -> Option<usize> {
    let q = text[at];
    let mut i = at + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b if b == q => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// End of a value starting at `at`: the next top-level `,` or the closing
/// bracket of the dump. None if the text ends first (a cut-off field).
fn value_end(text: &[u8], at: usize, close: u8) -> Option<usize> {
    // Brackets opened inside the value and not yet closed.
    let mut open_brackets = 0usize;
    let mut i = at;
    while i < text.len() {
        match text[i] {
            b'\'' | b'"' => {
                i = string_end(text, i)?;
                continue;
            }
            b'(' | b'[' | b'{' => open_brackets += 1,
            b')' | b']' | b'}' if open_brackets > 0 => open_brackets -= 1,
            b if open_brackets == 0 && (b == b',' || b == close) => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// A whole quoted string loses its quotes (escapes are kept as printed).
fn unquote(v: &[u8]) -> &[u8] {
    if v.len() >= 2
        && (v[0] == b'\'' || v[0] == b'"')
        && v[v.len() - 1] == v[0]
        && string_end(v, 0) == Some(v.len())
    {
        &v[1..v.len() - 1]
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(f: &'a [(String, String)], k: &str) -> Option<&'a str> {
        f.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
    }

    #[test]
    fn repr_dict_and_json() {
        let f = fields(
            b"ServerArgs(model_path='/m/a, b', tp_size=8, cuda_graph_bs=[1, 2, 4], json_model_override_args='{}', lora_paths={'a': 'x=1'}, ep_size=8, speculative_algorithm=None, enable_dp_attention=True)",
        );
        assert_eq!(get(&f, "model_path"), Some("/m/a, b"));
        assert_eq!(get(&f, "tp_size"), Some("8"));
        assert_eq!(get(&f, "cuda_graph_bs"), Some("[1, 2, 4]"));
        assert_eq!(get(&f, "lora_paths"), Some("{'a': 'x=1'}"));
        assert_eq!(get(&f, "ep_size"), Some("8"));
        assert_eq!(get(&f, "speculative_algorithm"), Some("None"));
        assert_eq!(get(&f, "enable_dp_attention"), Some("True"));
        assert_eq!(f.len(), 8);
        let f =
            fields(b"{'tp_size': 4, 'model': \"it's\", 'x': {'y': 1, 'z': [1, {}]}, 'ep_size': 2}");
        assert_eq!(get(&f, "model"), Some("it's"));
        assert_eq!(get(&f, "x"), Some("{'y': 1, 'z': [1, {}]}"));
        assert_eq!(get(&f, "ep_size"), Some("2"));
        let f = fields(br#"{"max_batch_size": 64, "max_seq_len": 8192}"#);
        assert_eq!(get(&f, "max_seq_len"), Some("8192"));
    }

    #[test]
    fn cut_off_field_is_left_out() {
        let f = fields(b"ServerArgs(tp_size=8, model_path='/models/Deep");
        assert_eq!(f, vec![("tp_size".to_string(), "8".to_string())]);
        let f = fields(b"{'tp_size': 8, 'bs': [1, 2");
        assert_eq!(f.len(), 1);
        assert!(fields(b"no dump here").is_empty());
        assert!(fields(b"f(x) = (a=1)").is_empty());
    }

    #[test]
    fn linear_on_a_long_dump() {
        let mut s = b"{".to_vec();
        for i in 0..200_000 {
            s.extend_from_slice(format!("'k{i}': [{i}, '(', \"]\"], ").as_bytes());
        }
        s.push(b'}');
        // Quadratic parsing would make this a test of minutes; the time is
        // not asserted (CI machines are shared), the fields are.
        let f = fields(&s);
        assert_eq!(f.len(), 200_000);
        assert_eq!(f[199_999].0, "k199999");
    }
}
