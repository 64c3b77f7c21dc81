//! `artiscan ls`: members through every layer, like `tar -tv` / `unzip -l`.

use crate::harness::*;

const MULTINODE: &str = "multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01";

#[test]
fn lists_members_inside_a_tarball_inside_a_zip() {
    let zip = sample(&format!("{MULTINODE}.zip"));
    let run = artiscan(&["ls", "--json", &zip]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let members = run.of_type("member");
    // Every member of the nested tarball, with the zip and tarball in its chain.
    let decode = members
        .iter()
        .find(|m| m["members"][1] == "./gb200-node01_decode_w0.out")
        .expect("decode worker log listed");
    assert_eq!(decode["members"][0], "multinode_server_logs.tar.gz");
    assert_eq!(
        decode["citation"],
        format!("{zip}!multinode_server_logs.tar.gz!./gb200-node01_decode_w0.out")
    );
    // Line count and size agree with the same member read by grep.
    let lines = artiscan(&["grep", "-c", "", &zip]);
    let grep_count: u64 = lines
        .stdout
        .lines()
        .find(|l| l.contains("gb200-node01_decode_w0.out:"))
        .and_then(|l| l.rsplit(':').next())
        .and_then(|n| n.parse().ok())
        .expect("grep -c line for the decode log");
    assert_eq!(decode["lines"].as_u64(), Some(grep_count));
    assert!(decode["bytes"].as_u64().unwrap() > 0);
    assert_eq!(decode["complete"], true);
    let cov = run.of_type("coverage");
    assert_eq!(cov.len(), 1);
    assert_eq!(cov[0]["members"].as_u64(), Some(members.len() as u64));
}

#[test]
fn damaged_members_are_listed_with_their_error() {
    let run = artiscan(&[
        "ls",
        &sample(&format!("damaged/truncated_{MULTINODE}.tar.gz")),
    ]);
    assert_eq!(run.code, 2, "a damaged artifact is an error");
    let cut = run
        .stdout
        .lines()
        .find(|l| l.contains("gb200-node01_decode_w0.out"))
        .expect("the cut member is listed");
    assert!(cut.contains("truncated"), "{cut}");
    assert!(run.stdout.lines().any(|l| l.ends_with("config.yaml  ok")));
    // Binary members say so.
    let core = artiscan(&["ls", &sample("damaged/core_dump_artifact.zip")]);
    assert!(
        core.stdout.contains("core.12345  binary"),
        "{}",
        core.stdout
    );
}

/// Stored (compressed) sizes and detected formats per layer, checked
/// against Python's zipfile and tarfile.
#[test]
fn stored_sizes_and_formats_per_layer() {
    let zip = sample(&format!("{MULTINODE}.zip"));
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, io, zipfile, tarfile\n\
             z = zipfile.ZipFile(sys.argv[1])\n\
             i = z.getinfo('multinode_server_logs.tar.gz')\n\
             t = tarfile.open(fileobj=io.BytesIO(z.read(i)))\n\
             print(i.compress_size, t.getmember('./gb200-node01_decode_w0.err.gz').size)",
        ])
        .arg(root().join(&zip))
        .output()
        .expect("python3");
    let text = String::from_utf8(out.stdout).unwrap();
    let sizes: Vec<u64> = text
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let run = artiscan(&["ls", "--json", &zip]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let members = run.of_type("member");
    let find = |name: &str| {
        members
            .iter()
            .find(|m| m["members"][1] == name)
            .unwrap_or_else(|| panic!("{name} listed"))
            .clone()
    };
    let decode = find("./gb200-node01_decode_w0.out");
    assert_eq!(
        decode["formats"],
        serde_json::json!(["zip", "gzip", "tar", "text"])
    );
    assert_eq!(decode["stored"][0].as_u64(), Some(sizes[0]));
    // A tar member is stored as is: its size is its bytes.
    assert_eq!(decode["stored"][1], decode["bytes"]);
    let err = find("./gb200-node01_decode_w0.err.gz");
    assert_eq!(
        err["formats"],
        serde_json::json!(["zip", "gzip", "tar", "gzip", "text"])
    );
    assert_eq!(err["stored"][1].as_u64(), Some(sizes[1]));
    assert!(sizes[1] < err["bytes"].as_u64().unwrap());
    // The text listing shows the stored size and the layers.
    let txt = artiscan(&["ls", &zip]);
    let line = txt
        .stdout
        .lines()
        .find(|l| l.contains("decode_w0.err.gz"))
        .unwrap();
    assert!(line.contains(&format!(" {} ", sizes[1])), "{line}");
    assert!(line.contains("zip>gzip>tar>gzip>text"), "{line}");
    // A zstd tarball, no zip.
    let zst = artiscan(&["ls", "--json", &sample("trtllm_logs.tar.zst")]);
    let first = &zst.of_type("member")[0];
    assert_eq!(first["formats"][0], "zstd");
    assert_eq!(first["formats"][1], "tar");
}

#[test]
fn a_header_on_a_terminal_none_on_a_pipe_or_with_no_header() {
    let zip = sample(&format!("{MULTINODE}.zip"));
    let header = "SIZE       STORED     LINES  FORMATS            MEMBER  STATUS";
    let (code, tty) = artiscan_on_terminal(&["ls", &zip]);
    assert_eq!(code, 0, "{tty}");
    let first = tty.lines().next().unwrap_or_default();
    assert_eq!(first.trim_start(), header, "{tty}");
    // The rows are those printed to a pipe, which has no header.
    let piped = artiscan(&["ls", &zip]);
    assert!(!piped.stdout.contains("STATUS"), "{}", piped.stdout);
    assert_eq!(
        tty.lines().skip(1).collect::<Vec<_>>(),
        piped.stdout.lines().collect::<Vec<_>>()
    );
    // The columns line up with the rows': the header's SIZE ends where sizes end.
    assert_eq!(first.find("SIZE").map(|i| i + 4), Some(12), "{first}");
    let (_, bare) = artiscan_on_terminal(&["ls", "--no-header", &zip]);
    assert_eq!(bare, piped.stdout);
    // JSON is unchanged on a terminal.
    let (_, json) = artiscan_on_terminal(&["ls", "--json", &zip]);
    assert_eq!(json, artiscan(&["ls", "--json", &zip]).stdout);
}
