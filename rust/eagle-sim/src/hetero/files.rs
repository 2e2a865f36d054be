//! The heterogeneous mode's input files: machine configurations, task classes and
//! per-job demands. All three are whitespace-separated text with a header line:
//!
//! ```text
//! # comment (from '#' to the end of a line), blank lines ignored
//! count   cores  memory          machines file: one configuration per line
//! 6732    0.50   0.50
//!
//! class   proportion  cores  memory      classes file: one class per line
//! 1       0.23        0.02   0.01
//!
//! class   cores  memory          demands file (written by `gen --classes`): one
//! 3       0.071  0.025           line per job of the trace, in trace order
//! ```
//!
//! After the fixed leading columns, the header names the resources (any names;
//! `cores` is the one Eagle's slots are counted from). A file's resources must be
//! the machines file's, in the same order. Every error names the file and line.

use eagle_core::hetero::resources::Resources;
use eagle_core::hetero::MachineConfig;

pub use crate::error::FileError;

/// A parsed table: resource names, then `(line, leading fields, amounts)` rows.
struct Table {
    resources: Vec<String>,
    rows: Vec<(usize, Vec<String>, Vec<f64>)>,
}

fn err(file: &str, line: Option<usize>, message: impl Into<String>) -> FileError {
    FileError { file: file.to_string(), line, message: message.into() }
}

/// Parses `text` whose header starts with the columns `lead`.
fn table(file: &str, text: &str, lead: &[&str]) -> Result<Table, FileError> {
    let mut resources: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("");
        let fields: Vec<&str> = content.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        match &resources {
            None => {
                if fields.len() <= lead.len()
                    || fields[..lead.len()].iter().zip(lead).any(|(a, b)| !a.eq_ignore_ascii_case(b))
                {
                    return Err(err(
                        file,
                        Some(line),
                        format!(
                            "expected a header line '{} RESOURCE...' (e.g. '{} cores memory'), found '{}'",
                            lead.join(" "),
                            lead.join(" "),
                            content.trim()
                        ),
                    ));
                }
                let names: Vec<String> = fields[lead.len()..].iter().map(|s| s.to_ascii_lowercase()).collect();
                for (a, n) in names.iter().enumerate() {
                    if names[..a].contains(n) {
                        return Err(err(file, Some(line), format!("resource '{n}' appears twice in the header")));
                    }
                }
                resources = Some(names);
            }
            Some(names) => {
                let want = lead.len() + names.len();
                if fields.len() != want {
                    return Err(err(
                        file,
                        Some(line),
                        format!(
                            "expected {want} fields ({} {}), found {}",
                            lead.join(" "),
                            names.join(" "),
                            fields.len()
                        ),
                    ));
                }
                let mut amounts = Vec::with_capacity(names.len());
                for (f, name) in fields[lead.len()..].iter().zip(names) {
                    match f.parse::<f64>() {
                        Ok(v) if v.is_finite() && v >= 0.0 => amounts.push(v),
                        _ => return Err(err(file, Some(line), format!("{name}: '{f}' is not a finite number >= 0"))),
                    }
                }
                rows.push((line, fields[..lead.len()].iter().map(|s| s.to_string()).collect(), amounts));
            }
        }
    }
    let resources =
        resources.ok_or_else(|| err(file, None, format!("no header line ('{} cores memory')", lead.join(" "))))?;
    if rows.is_empty() {
        return Err(err(file, None, "no data lines after the header"));
    }
    Ok(Table { resources, rows })
}

fn read(path: &str) -> Result<String, FileError> {
    std::fs::read_to_string(path).map_err(|e| err(path, None, format!("cannot read: {e}")))
}

/// A machines file.
#[derive(Clone, Debug, PartialEq)]
pub struct Machines {
    pub resources: Vec<String>,
    pub configs: Vec<MachineConfig>,
}

impl Machines {
    pub fn load(path: &str) -> Result<Machines, FileError> {
        Machines::parse(path, &read(path)?)
    }
    pub fn parse(file: &str, text: &str) -> Result<Machines, FileError> {
        let t = table(file, text, &["count"])?;
        let mut configs = Vec::new();
        for (line, lead, amounts) in t.rows {
            let count = match lead[0].parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => return Err(err(file, Some(line), format!("count: '{}' is not an integer >= 1", lead[0]))),
            };
            if amounts.iter().all(|&a| a == 0.0) {
                return Err(err(file, Some(line), "a machine with no resources at all"));
            }
            configs.push(MachineConfig { count, capacity: Resources::new(amounts) });
        }
        Ok(Machines { resources: t.resources, configs })
    }
    /// Every count times `factor`, rounded, at least 1 (every configuration stays).
    pub fn scaled(&self, factor: f64) -> Machines {
        let mut m = self.clone();
        for c in &mut m.configs {
            c.count = ((c.count as f64 * factor).round() as u32).max(1);
        }
        m
    }
    pub fn machine_count(&self) -> u64 {
        self.configs.iter().map(|c| c.count as u64).sum()
    }
    /// Index of the `cores` resource.
    pub fn cores(&self) -> Option<usize> {
        self.resources.iter().position(|r| r == "cores")
    }
}

/// One class of a classes file.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassSpec {
    pub name: String,
    pub proportion: f64,
    pub demand: Vec<f64>,
}

/// A classes file (the paper's Table 2).
#[derive(Clone, Debug, PartialEq)]
pub struct ClassFile {
    pub resources: Vec<String>,
    pub classes: Vec<ClassSpec>,
}

impl ClassFile {
    pub fn load(path: &str) -> Result<ClassFile, FileError> {
        ClassFile::parse(path, &read(path)?)
    }
    pub fn parse(file: &str, text: &str) -> Result<ClassFile, FileError> {
        let t = table(file, text, &["class", "proportion"])?;
        let mut classes = Vec::new();
        for (line, lead, demand) in t.rows {
            let proportion = match lead[1].parse::<f64>() {
                Ok(p) if p.is_finite() && p > 0.0 => p,
                _ => return Err(err(file, Some(line), format!("proportion: '{}' is not a number > 0", lead[1]))),
            };
            if demand.iter().all(|&d| d == 0.0) {
                return Err(err(file, Some(line), "a class that demands nothing"));
            }
            classes.push(ClassSpec { name: lead[0].clone(), proportion, demand });
        }
        Ok(ClassFile { resources: t.resources, classes })
    }
}

/// A demands file: one demand per job.
#[derive(Clone, Debug, PartialEq)]
pub struct Demands {
    pub resources: Vec<String>,
    /// Generating class name of each job (for inspection; LoTES finds its own).
    pub class: Vec<String>,
    pub demand: Vec<Resources>,
}

impl Demands {
    pub fn load(path: &str) -> Result<Demands, FileError> {
        Demands::parse(path, &read(path)?)
    }
    pub fn parse(file: &str, text: &str) -> Result<Demands, FileError> {
        let t = table(file, text, &["class"])?;
        let mut d = Demands { resources: t.resources, class: Vec::new(), demand: Vec::new() };
        for (_, lead, amounts) in t.rows {
            d.class.push(lead[0].clone());
            d.demand.push(Resources::new(amounts));
        }
        Ok(d)
    }
}

/// Checks that `file`'s resources are the machines file's.
pub fn same_resources(file: &str, got: &[String], machines: &Machines) -> Result<(), FileError> {
    if got != machines.resources.as_slice() {
        return Err(err(
            file,
            None,
            format!(
                "resources {:?} differ from the machines file's {:?} (same names, same order)",
                got, machines.resources
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shipped_examples() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data");
        let m = Machines::load(&format!("{dir}/lotes-table1.machines")).unwrap();
        assert_eq!(m.resources, vec!["cores", "memory"]);
        assert_eq!(m.configs.len(), 10);
        assert_eq!(m.machine_count(), 12_583);
        assert_eq!(m.configs[0].capacity.amounts(), &[0.5, 0.5]);
        let s = m.scaled(0.01);
        assert_eq!(s.configs.iter().map(|c| c.count).collect::<Vec<_>>(), vec![67, 39, 10, 8, 1, 1, 1, 1, 1, 1]);
        let c = ClassFile::load(&format!("{dir}/lotes-table2.classes")).unwrap();
        assert_eq!(c.classes.len(), 4);
        assert_eq!(c.classes[3].demand, vec![0.20, 0.06]);
        assert!((c.classes.iter().map(|k| k.proportion).sum::<f64>() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let e = Machines::parse("m.txt", "# x\ncount cores memory\n10 0.5\n").unwrap_err();
        assert_eq!(e.to_string(), "m.txt:3: expected 3 fields (count cores memory), found 2");
        let e = Machines::parse("m.txt", "count cores memory\n\n0 0.5 0.5\n").unwrap_err();
        assert_eq!(e.to_string(), "m.txt:3: count: '0' is not an integer >= 1");
        let e = Machines::parse("m.txt", "count cores memory\n1 -1 0.5\n").unwrap_err();
        assert_eq!(e.to_string(), "m.txt:2: cores: '-1' is not a finite number >= 0");
        let e = Machines::parse("m.txt", "cores memory\n1 1\n").unwrap_err();
        assert!(e.to_string().starts_with("m.txt:1: expected a header line 'count RESOURCE...'"), "{e}");
        let e = ClassFile::parse("c.txt", "class proportion cores\n1 x 0.2\n").unwrap_err();
        assert_eq!(e.to_string(), "c.txt:2: proportion: 'x' is not a number > 0");
        let e = ClassFile::parse("c.txt", "class proportion cores cores\n").unwrap_err();
        assert_eq!(e.to_string(), "c.txt:1: resource 'cores' appears twice in the header");
        let e = Demands::parse("d.txt", "class cores\n").unwrap_err();
        assert_eq!(e.to_string(), "d.txt: no data lines after the header");
        let m = Machines::parse("m", "count cores memory # trailing comment\n2 1 1\n").unwrap();
        let e = same_resources("c.txt", &["memory".into(), "cores".into()], &m).unwrap_err();
        assert!(e.to_string().contains("differ from the machines file's"), "{e}");
    }
}
