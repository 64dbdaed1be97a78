//! The shape of a fastchess / cutechess-cli command line: options that start with `-`, each
//! followed by its parameters up to the next option (`-engine cmd=sf name=sf tc=8+0.08`,
//! `-concurrency 4`, `-recover`).

/// One option as written, and its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    /// Without its leading dashes: `engine`, `each`, `version`.
    pub name: String,
    /// As written: `-engine` or `--version`, for messages.
    pub spelled: String,
    pub params: Vec<String>,
}

impl Given {
    /// The `key=value` parameters; a parameter without `=` is an error that names the option.
    pub fn pairs(&self) -> Result<Vec<(&str, &str)>, String> {
        self.params
            .iter()
            .map(|p| {
                p.split_once('=').ok_or_else(|| {
                    format!("{}: expected key=value parameters, got {p:?}", self.spelled)
                })
            })
            .collect()
    }

    /// The parameters of `-engine` or `-each`: `key=value`, and cutechess-cli's bare `ponder`
    /// (read as `ponder=true`).
    pub fn engine_pairs(&self) -> Result<Vec<(&str, &str)>, String> {
        self.params
            .iter()
            .map(|p| match p.split_once('=') {
                Some(pair) => Ok(pair),
                None if p == "ponder" => Ok(("ponder", "true")),
                None => Err(format!(
                    "{}: expected key=value parameters, got {p:?}",
                    self.spelled
                )),
            })
            .collect()
    }

    /// The one parameter of an option that takes exactly one.
    pub fn single(&self) -> Result<&str, String> {
        match self.params.as_slice() {
            [one] => Ok(one),
            [] => Err(format!("{}: expects a value", self.spelled)),
            _ => Err(format!(
                "{}: expects one value, got {}",
                self.spelled,
                self.params.join(" ")
            )),
        }
    }

    /// An option that takes no parameter.
    pub fn none(&self) -> Result<(), String> {
        match self.params.as_slice() {
            [] => Ok(()),
            more => Err(format!(
                "{}: takes no value, got {}",
                self.spelled,
                more.join(" ")
            )),
        }
    }
}

/// Splits the arguments (without the program's name) into options. A word that starts with
/// `-` and then a letter (or `--` and a letter) starts an option; any other word is a
/// parameter of the option before it (`-draw movenumber=40`, `-sprt elo0=-2`, `-srand -5`
/// does not occur). A parameter before the first option is an error.
pub fn split(args: &[String]) -> Result<Vec<Given>, String> {
    let mut given: Vec<Given> = Vec::new();
    for arg in args {
        if let Some(name) = option_name(arg) {
            given.push(Given {
                name: name.to_string(),
                spelled: arg.clone(),
                params: Vec::new(),
            });
        } else if let Some(last) = given.last_mut() {
            last.params.push(arg.clone());
        } else {
            return Err(format!(
                "{arg:?} is not an option (options start with -, e.g. -engine cmd=...)"
            ));
        }
    }
    Ok(given)
}

fn option_name(arg: &str) -> Option<&str> {
    let name = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        .then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_take_the_words_up_to_the_next_option() {
        let given = split(&words(
            "-engine cmd=sf name=a -each tc=8+0.08 -recover -sprt elo0=-2 elo1=2 --version",
        ))
        .unwrap();
        let names: Vec<&str> = given.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["engine", "each", "recover", "sprt", "version"]);
        assert_eq!(given[0].params, ["cmd=sf", "name=a"]);
        assert_eq!(given[3].pairs().unwrap(), [("elo0", "-2"), ("elo1", "2")]);
        assert_eq!(given[4].spelled, "--version");
        assert!(given[2].none().is_ok());
    }

    #[test]
    fn shapes_are_checked() {
        let given = split(&words("-concurrency -log level -recover x")).unwrap();
        assert_eq!(
            given[0].single().unwrap_err(),
            "-concurrency: expects a value"
        );
        assert!(given[1].pairs().unwrap_err().contains("got \"level\""));
        assert!(given[2].none().unwrap_err().contains("got x"));
        assert!(split(&words("cmd=sf -engine")).is_err());
    }
}
