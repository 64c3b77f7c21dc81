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
        .find(|m| m["members"][1] == "gb200-node01_decode_w0.out")
        .expect("decode worker log listed");
    assert_eq!(decode["members"][0], "multinode_server_logs.tar.gz");
    assert_eq!(
        decode["citation"],
        format!("{zip}!multinode_server_logs.tar.gz!gb200-node01_decode_w0.out")
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
