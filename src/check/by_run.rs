//! Values kept per run folder, in the order runs are first seen.

use std::collections::HashMap;

/// Per run, a value, in the order the runs were first seen (the order
/// reports list them in); a run is found through an index, so filling it
/// is linear in the items however many runs they span.
#[derive(Debug, Clone)]
pub(crate) struct ByRun<V> {
    runs: Vec<(String, V)>,
    index: HashMap<String, usize>,
}

impl<V> Default for ByRun<V> {
    fn default() -> Self {
        ByRun {
            runs: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<V> ByRun<V> {
    /// The value of `run`, made by `make` when the run is first seen.
    pub(crate) fn entry(&mut self, run: &str, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.index.get(run) {
            Some(&at) => at,
            None => {
                self.index.insert(run.to_string(), self.runs.len());
                self.runs.push((run.to_string(), make()));
                self.runs.len() - 1
            }
        };
        &mut self.runs[at].1
    }

    /// The value of `run`, if it was seen.
    pub(crate) fn get(&self, run: &str) -> Option<&V> {
        self.index.get(run).map(|&at| &self.runs[at].1)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The runs and their values, in order of first sight.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.runs.iter().map(|(r, v)| (r.as_str(), v))
    }

    pub(crate) fn into_vec(self) -> Vec<(String, V)> {
        self.runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_keep_the_order_they_were_first_seen_in() {
        let mut by = ByRun::default();
        for (run, x) in [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)] {
            by.entry(run, Vec::new).push(x);
        }
        let got: Vec<(&str, &Vec<i32>)> = by.iter().collect();
        assert_eq!(
            got,
            [("b", &vec![1, 3]), ("a", &vec![2, 5]), ("c", &vec![4])]
        );
        assert_eq!(by.into_vec().len(), 3);
    }
}
