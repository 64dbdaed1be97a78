//! `-config file=F`: fastchess's JSON tournament file (the `config.json` fastchess writes as it
//! plays, or one written by hand in its shape) read as the options it stands for. The engines
//! and the settings become `-engine`, `-games`, `-openings`, ... exactly as if written on the
//! command line, in place of everything before `-config` (fastchess replaces its settings with
//! the file's); options after it change them further.
//!
//! The file's `stats` are fastchess's counts of a match under way. The arena cannot take up
//! fastchess's counts, so a file with games played is refused, and `stats=false` (fastchess's
//! own key) plays the match anew with the file's settings.

use serde_json::Value;

use super::grammar::Given;
use super::options::given;
use super::Builder;

impl Builder {
    pub(super) fn config(&mut self, g: &Given) -> Result<(), String> {
        let (mut file, mut keep_stats, mut discard) = (None, true, false);
        for (key, value) in g.pairs()? {
            match (key, value) {
                ("file", f) => file = Some(f),
                ("stats", v) => keep_stats = v != "false",
                ("discard", v) => discard = v == "true",
                ("outname", name) => self.warnings.add(format!(
                    "{} outname={name}: ignored: no tournament file is written (-out DIR keeps every game as it ends)",
                    g.spelled
                )),
                _ => return Err(format!("{} {key}={value}: expected file=, stats=, discard= or outname=", g.spelled)),
            }
        }
        let Some(file) = file else {
            return Err(format!("{}: give the file with file=F", g.spelled));
        };
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("{} file={file}: cannot read: {e}", g.spelled))?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} file={file}: not fastchess's JSON: {e}", g.spelled))?;
        // `discard=true`: fastchess reads the file, then goes back to the command line's.
        if discard {
            return Ok(());
        }
        let options = options_of(&json).map_err(|e| format!("{} file={file}: {e}", g.spelled))?;
        let played = games_played(&json);
        let engines = json["engines"].as_array().map_or(0, Vec::len);
        if played > 0 && keep_stats && engines <= 2 {
            return Err(format!(
                "{} file={file}: it holds {played} games fastchess played (a match to resume); blitz-arena cannot take up fastchess's counts: add stats=false to play the match anew with its settings, or finish it with fastchess",
                g.spelled
            ));
        }
        if played > 0 && keep_stats {
            self.warnings.add(format!(
                "{} file={file}: its {played} games are not counted: fastchess drops the stats of more than two engines too",
                g.spelled
            ));
        }
        let warnings = std::mem::take(&mut self.warnings);
        *self = Builder::new(self.tool);
        self.warnings = warnings;
        for option in options {
            self.apply(&option)
                .map_err(|e| format!("{} file={file}: {e}", g.spelled))?;
        }
        Ok(())
    }
}

/// The games the file's `stats` count, every pairing together.
fn games_played(json: &Value) -> u64 {
    let Some(stats) = json["stats"].as_object() else {
        return 0;
    };
    stats
        .values()
        .map(|s| {
            ["wins", "losses", "draws"]
                .iter()
                .map(|k| s[k].as_u64().unwrap_or(0))
                .sum::<u64>()
        })
        .sum()
}

/// A field that must be there: fastchess writes every field and reads none without it.
fn field<'a>(json: &'a Value, path: &str) -> Result<&'a Value, String> {
    let mut v = json;
    for key in path.split('.') {
        v = v
            .get(key)
            .ok_or_else(|| format!("no field {path:?} (fastchess writes every field)"))?;
    }
    Ok(v)
}

fn num(json: &Value, path: &str) -> Result<f64, String> {
    field(json, path)?
        .as_f64()
        .ok_or_else(|| format!("{path} is not a number"))
}

fn int(json: &Value, path: &str) -> Result<i64, String> {
    let v = num(json, path)?;
    if v.fract() == 0.0 {
        Ok(v as i64)
    } else {
        Err(format!("{path} is not a whole number"))
    }
}

fn flag(json: &Value, path: &str) -> Result<bool, String> {
    field(json, path)?
        .as_bool()
        .ok_or_else(|| format!("{path} is not true or false"))
}

fn text<'a>(json: &'a Value, path: &str) -> Result<&'a str, String> {
    field(json, path)?
        .as_str()
        .ok_or_else(|| format!("{path} is not a string"))
}

/// Seconds as the tools write them: `8`, `0.08`.
fn seconds(ms: i64) -> String {
    format!("{}", ms as f64 / 1000.0)
}

/// The options the file stands for, in the order the command line would give them.
fn options_of(json: &Value) -> Result<Vec<Given>, String> {
    let engines = field(json, "engines")?
        .as_array()
        .ok_or("engines is not a list")?;
    let mut out: Vec<Given> = engines.iter().map(engine).collect::<Result<_, _>>()?;
    let mut add = |name: &str, params: Vec<String>| out.push(given(name, &params));
    add("games", vec![int(json, "games")?.to_string()]);
    add("rounds", vec![int(json, "rounds")?.to_string()]);
    add("concurrency", vec![int(json, "concurrency")?.to_string()]);
    add("srand", vec![field(json, "seed")?.to_string()]);
    add(
        "ratinginterval",
        vec![int(json, "ratinginterval")?.to_string()],
    );
    add(
        "scoreinterval",
        vec![int(json, "scoreinterval")?.to_string()],
    );
    if int(json, "variant")? == 1 {
        add("variant", vec!["fischerandom".into()]);
    }
    match (int(json, "type")?, engines.len()) {
        (1, _) => add("tournament", vec!["gauntlet".into()]),
        (_, n) if n > 2 => add("tournament", vec!["roundrobin".into()]),
        _ => {}
    }
    let output = ["fastchess", "cutechess"].get(int(json, "output")? as usize);
    add(
        "output",
        vec![format!("format={}", output.unwrap_or(&"fastchess"))],
    );
    if !flag(json, "report_penta")? {
        add("report", vec!["penta=false".into()]);
    }
    for (key, option) in [
        ("recover", "recover"),
        ("noswap", "noswap"),
        ("reverse", "reverse"),
        ("affinity", "use-affinity"),
        ("check_mate_pvs", "check-mate-pvs"),
        ("show_latency", "show-latency"),
        ("force_concurrency", "force-concurrency"),
    ] {
        if json.get(key).and_then(Value::as_bool) == Some(true) {
            add(option, Vec::new());
        }
    }
    if let Some(wait) = json.get("wait").and_then(Value::as_i64).filter(|w| *w > 0) {
        add("wait", vec![wait.to_string()]);
    }
    if let Some(seeds) = json
        .get("gauntlet_seeds")
        .and_then(Value::as_i64)
        .filter(|s| *s > 1)
    {
        add("seeds", vec![seeds.to_string()]);
    }
    files(json, &mut add)?;
    adjudication(json, &mut add)?;
    Ok(out)
}

/// One engine of `engines`: `-engine name= cmd= dir= args= option.X= tc=|st= nodes= plies=
/// timemargin=`.
fn engine(e: &Value) -> Result<Given, String> {
    let mut p = vec![
        format!("name={}", text(e, "name")?),
        format!("cmd={}", text(e, "cmd")?),
    ];
    for (key, path) in [("dir", "dir"), ("args", "args")] {
        let v = text(e, path)?;
        if !v.is_empty() {
            p.push(format!("{key}={v}"));
        }
    }
    for option in field(e, "options")?
        .as_array()
        .ok_or("options is not a list")?
    {
        match option.as_array().map(Vec::as_slice) {
            Some([Value::String(k), Value::String(v)]) => p.push(format!("option.{k}={v}")),
            _ => return Err(format!("an option of {} is not [name, value]", e["name"])),
        }
    }
    let (time, inc) = (int(e, "limit.tc.time")?, int(e, "limit.tc.increment")?);
    let (moves, fixed) = (int(e, "limit.tc.moves")?, int(e, "limit.tc.fixed_time")?);
    if time + inc > 0 {
        let moves = if moves > 0 {
            format!("{moves}/")
        } else {
            String::new()
        };
        p.push(format!("tc={moves}{}+{}", seconds(time), seconds(inc)));
    } else if fixed > 0 {
        p.push(format!("st={}", seconds(fixed)));
    } else {
        p.push("tc=inf".into());
    }
    for (key, path) in [
        ("nodes", "limit.nodes"),
        ("plies", "limit.plies"),
        ("timemargin", "limit.tc.timemargin"),
    ] {
        let v = int(e, path)?;
        if v > 0 {
            p.push(format!("{key}={v}"));
        }
    }
    if flag(e, "restart")? {
        p.push("restart=on".into());
    }
    Ok(given("engine", &p))
}

/// `opening`, `pgn`, `epd`, `log`: the files, those with a name.
fn files(json: &Value, add: &mut impl FnMut(&str, Vec<String>)) -> Result<(), String> {
    let book = text(json, "opening.file")?;
    if !book.is_empty() {
        let mut p = vec![
            format!("file={book}"),
            format!("start={}", int(json, "opening.start")?),
        ];
        match int(json, "opening.format")? {
            0 => p.push("format=epd".into()),
            1 => p.push("format=pgn".into()),
            _ => {}
        }
        let order = ["random", "sequential"].get(int(json, "opening.order")? as usize);
        p.push(format!("order={}", order.unwrap_or(&"sequential")));
        let plies = int(json, "opening.plies")?;
        if plies > 0 {
            p.push(format!("plies={plies}"));
        }
        add("openings", p);
    }
    let pgn = text(json, "pgn.file")?;
    if !pgn.is_empty() {
        let notation = ["san", "lan", "uci"].get(int(json, "pgn.notation")? as usize);
        let mut p = vec![
            format!("file={pgn}"),
            format!("notation={}", notation.unwrap_or(&"san")),
            format!("append={}", flag(json, "pgn.append_file")?),
        ];
        for (key, path) in [
            ("nodes", "track_nodes"),
            ("seldepth", "track_seldepth"),
            ("nps", "track_nps"),
            ("hashfull", "track_hashfull"),
            ("tbhits", "track_tbhits"),
            ("timeleft", "track_timeleft"),
            ("latency", "track_latency"),
            ("pv", "track_pv"),
            ("min", "min"),
        ] {
            if json["pgn"].get(path).and_then(Value::as_bool) == Some(true) {
                p.push(format!("{key}=true"));
            }
        }
        for line in json["pgn"]["additional_lines_rgx"]
            .as_array()
            .into_iter()
            .flatten()
        {
            p.push(format!("match_line={}", line.as_str().unwrap_or_default()));
        }
        add("pgnout", p);
        add("event", vec![text(json, "pgn.event_name")?.to_string()]);
        add("site", vec![text(json, "pgn.site")?.to_string()]);
        if json["pgn"].get("crc").and_then(Value::as_bool) == Some(true) {
            add("crc32", vec!["pgn=true".into()]);
        }
    }
    let epd = text(json, "epd.file")?;
    if !epd.is_empty() {
        let append = flag(json, "epd.append_file")?;
        add(
            "epdout",
            vec![format!("file={epd}"), format!("append={append}")],
        );
    }
    if let Some(log) = json["log"]["file"].as_str().filter(|f| !f.is_empty()) {
        add("log", vec![format!("file={log}")]);
    }
    Ok(())
}

/// `sprt`, `draw`, `resign`, `maxmoves`, `tb_adjudication`: those `enabled`.
fn adjudication(json: &Value, add: &mut impl FnMut(&str, Vec<String>)) -> Result<(), String> {
    if flag(json, "sprt.enabled")? {
        let mut p: Vec<String> = ["elo0", "elo1", "alpha", "beta"]
            .iter()
            .map(|k| Ok(format!("{k}={}", num(json, &format!("sprt.{k}"))?)))
            .collect::<Result<_, String>>()?;
        p.push(format!("model={}", text(json, "sprt.model")?));
        add("sprt", p);
    }
    if flag(json, "draw.enabled")? {
        add(
            "draw",
            vec![
                format!("movenumber={}", int(json, "draw.move_number")?),
                format!("movecount={}", int(json, "draw.move_count")?),
                format!("score={}", int(json, "draw.score")?),
            ],
        );
    }
    if flag(json, "resign.enabled")? {
        add(
            "resign",
            vec![
                format!("movecount={}", int(json, "resign.move_count")?),
                format!("score={}", int(json, "resign.score")?),
                format!("twosided={}", flag(json, "resign.twosided")?),
            ],
        );
    }
    if flag(json, "maxmoves.enabled")? {
        add(
            "maxmoves",
            vec![int(json, "maxmoves.move_count")?.to_string()],
        );
    }
    if flag(json, "tb_adjudication.enabled")? {
        add(
            "tb",
            vec![text(json, "tb_adjudication.syzygy_dirs")?.to_string()],
        );
        let pieces = int(json, "tb_adjudication.max_pieces")?;
        if pieces > 0 {
            add("tbpieces", vec![pieces.to_string()]);
        }
        if flag(json, "tb_adjudication.ignore_50_move_rule")? {
            add("tbignore50", Vec::new());
        }
    }
    Ok(())
}
