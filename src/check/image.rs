//! Container image references compared as Docker compares them (Check 2's
//! "the same inference-engine image as this PR's config").
//!
//! Normalisation follows Docker's `reference.ParseNormalizedNamed`
//! (github.com/distribution/reference, normalize.go): a first path
//! component is a registry only when it holds a `.` or `:` or is
//! `localhost`; otherwise the registry is `docker.io`; `index.docker.io`
//! is `docker.io`; a one-component Docker Hub name gets `library/`; no tag
//! and no digest means `:latest`. InferenceX's master configs write the
//! registry separator as `#` (`nvcr.io#nvidia/...`, the prompt's Check 6:
//! "Treat `#` as `/`"); enroot's `docker://` prefix is dropped. Tags and
//! repository paths are compared as written (case-sensitive); the registry
//! host ignoring case, as DNS does.
//!
//! A tag names whatever image was pushed under it last, a digest one image:
//! a digest against a tag cannot be decided from the text (unknown) unless
//! both sides pin digests.

/// One parsed reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImageRef {
    /// `registry/path`, normalised.
    pub name: String,
    pub tag: Option<String>,
    pub digest: Option<String>,
}

impl ImageRef {
    /// The reference in its normalised form, for reasons and grouping.
    pub(crate) fn canonical(&self) -> String {
        let mut s = self.name.clone();
        if let Some(t) = &self.tag {
            s.push(':');
            s.push_str(t);
        }
        if let Some(d) = &self.digest {
            s.push('@');
            s.push_str(d);
        }
        s
    }
}

/// Parses a reference; None where the text is no image reference (empty,
/// spaces, a file path such as an enroot `.sqsh` image).
pub(crate) fn parse(text: &str) -> Option<ImageRef> {
    let t = text.trim();
    let t = t.strip_prefix("docker://").unwrap_or(t);
    if t.is_empty()
        || t.starts_with('/')
        || t.starts_with('.')
        || t.ends_with(".sqsh")
        || t.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return None;
    }
    let t = t.replacen('#', "/", 1);
    let (rest, digest) = match t.rsplit_once('@') {
        Some((r, d)) if d.contains(':') && !d.contains('/') => (r.to_string(), Some(d.to_string())),
        Some(_) => return None,
        None => (t.clone(), None),
    };
    // A tag follows the last `:` after the last `/` (a `:` before it is a
    // registry port).
    let slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (path, tag) = match rest[slash..].rfind(':') {
        Some(i) => (
            rest[..slash + i].to_string(),
            Some(rest[slash + i + 1..].to_string()),
        ),
        None => (rest.clone(), None),
    };
    if path.is_empty() || tag.as_deref() == Some("") || path.split('/').any(str::is_empty) {
        return None;
    }
    let (registry, repo) = match path.split_once('/') {
        Some((first, r)) if first.contains('.') || first.contains(':') || first == "localhost" => {
            (first.to_ascii_lowercase(), r.to_string())
        }
        _ => ("docker.io".to_string(), path.clone()),
    };
    let registry = if registry == "index.docker.io" {
        "docker.io".to_string()
    } else {
        registry
    };
    let repo = if registry == "docker.io" && !repo.contains('/') {
        format!("library/{repo}")
    } else {
        repo
    };
    let tag = match (tag, &digest) {
        (None, None) => Some("latest".to_string()),
        (t, _) => t,
    };
    Some(ImageRef {
        name: format!("{registry}/{repo}"),
        tag,
        digest,
    })
}

/// How two references compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cmp {
    Same,
    Differ,
    /// Cannot be told from the text; why, in words.
    Unknown(String),
}

/// Compares two references as Docker resolves them.
pub(crate) fn compare(a: &str, b: &str) -> Cmp {
    let (Some(x), Some(y)) = (parse(a), parse(b)) else {
        let bad = if parse(a).is_none() { a } else { b };
        return Cmp::Unknown(format!("{bad:?} is no image reference"));
    };
    if x.name != y.name {
        return Cmp::Differ;
    }
    match (&x.digest, &y.digest) {
        (Some(d), Some(e)) => {
            if d.eq_ignore_ascii_case(e) {
                Cmp::Same
            } else {
                Cmp::Differ
            }
        }
        (None, None) => {
            if x.tag == y.tag {
                Cmp::Same
            } else {
                Cmp::Differ
            }
        }
        _ => Cmp::Unknown(format!(
            "{a:?} and {b:?}: a digest against a tag cannot be compared without the registry (pin digests on both sides)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_normalise_as_docker_does() {
        assert_eq!(
            compare(
                "docker.io/lmsysorg/sglang:v0.5.16",
                "lmsysorg/sglang:v0.5.16"
            ),
            Cmp::Same
        );
        assert_eq!(
            compare(
                "index.docker.io/lmsysorg/sglang:v0.5.16",
                "lmsysorg/sglang:v0.5.16"
            ),
            Cmp::Same
        );
        assert_eq!(
            compare("ubuntu", "docker.io/library/ubuntu:latest"),
            Cmp::Same
        );
        assert_eq!(
            compare(
                "nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc23",
                "nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc23"
            ),
            Cmp::Same
        );
        // A real difference.
        assert_eq!(
            compare("lmsysorg/sglang:v0.5.15.post1", "lmsysorg/sglang:v0.5.16"),
            Cmp::Differ
        );
        // Tags are case-sensitive; another registry is another image.
        assert_eq!(compare("x/y:V1", "x/y:v1"), Cmp::Differ);
        assert_eq!(compare("ghcr.io/x/y:v1", "x/y:v1"), Cmp::Differ);
        // A registry port is no tag.
        let r = parse("localhost:5000/x/y").unwrap();
        assert_eq!(r.canonical(), "localhost:5000/x/y:latest");
        // Digest against tag: unknown; both digests: compared.
        let d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert!(matches!(
            compare(&format!("lmsysorg/sglang@{d}"), "lmsysorg/sglang:v0.5.16"),
            Cmp::Unknown(_)
        ));
        assert_eq!(
            compare(
                &format!("lmsysorg/sglang:v0.5.16@{d}"),
                &format!("docker.io/lmsysorg/sglang@{d}")
            ),
            Cmp::Same
        );
        // A file path or an empty value is no reference.
        assert!(parse("/mnt/containers/lmsysorg+sglang+v0.5.5.sqsh").is_none());
        assert!(parse("").is_none());
        assert!(matches!(compare("a b", "x"), Cmp::Unknown(_)));
    }
}
