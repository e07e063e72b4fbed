//! The run's text output: the table, the CSV file, and the project's speed targets checked
//! on this run's rows.

use std::fmt::Write as _;

use crate::common;
use crate::{Row, ms};

fn si(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.1} k", x / 1e3),
        x => format!("{x:.0} "),
    }
}

pub fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<24} {:<20} {:>9} {:>11} {:>16} {:>11} {:>11} {:>10}",
        "stage",
        "backend",
        "size",
        "median ms",
        "per second",
        "upload B",
        "readback B",
        "kernel ms"
    );
    // The Box2D comparison has a table of its own (`versus_table`).
    for r in rows.iter().filter(|r| !is_versus(r)) {
        let opt = |b: Option<u64>| b.map_or("-".to_string(), |b| format!("{}B", si(b as f64)));
        let _ = writeln!(
            s,
            "{:<24} {:<20} {:>9} {:>11.3} {:>16} {:>11} {:>11} {:>10}",
            r.stage,
            r.backend,
            r.size,
            ms(r.median),
            format!("{}{}/s", si(r.per_second()), r.unit),
            opt(r.upload),
            opt(r.readback),
            r.kernel
                .map_or("-".to_string(), |k| format!("{:.3}", ms(k))),
        );
    }
    s
}

/// Whether a row belongs to the Box2D comparison.
fn is_versus(r: &Row) -> bool {
    r.stage.starts_with("world_step_vs_box2d")
}

pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "stage,backend,size,unit,median_ms,per_second,upload_bytes,readback_bytes,kernel_ms\n",
    );
    for r in rows {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let _ = writeln!(
            s,
            "{},{},{},{},{:.6},{:.1},{},{},{}",
            r.stage,
            r.backend,
            r.size,
            r.unit,
            ms(r.median),
            r.per_second(),
            opt(r.upload.map(|b| b.to_string())),
            opt(r.readback.map(|b| b.to_string())),
            opt(r.kernel.map(|k| format!("{:.6}", ms(k)))),
        );
    }
    s
}

/// The project's speed targets, checked on the rows of this run (ratios of times taken in
/// the same run on the same inputs; the Box2D figure is the reference per-pair time of
/// `b2CollidePolygons` measured on these machines, not measured here).
pub fn targets(rows: &[Row]) {
    const BOX2D_NS_PER_PAIR: f64 = 113.0;
    let find = |stage: &str, backend: &str, size: usize| {
        rows.iter()
            .find(|r| r.stage == stage && r.backend == backend && r.size == size)
            .map(|r| r.median.as_secs_f64())
    };
    println!();
    println!("targets (this run):");
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    let n = 200_000;
    if let (Some(cpu), Some(parry)) = (
        find("narrow_phase", "cpu_1_thread", n),
        find("narrow_phase", "parry2d", n),
    ) {
        let ns = cpu * 1e9 / n as f64;
        println!(
            "  collide, one thread, {n} pairs: {ns:.0} ns per pair (Box2D reference {BOX2D_NS_PER_PAIR} ns), \
             {:.1}x parry2d's manifold: {}",
            parry / cpu,
            verdict(ns <= BOX2D_NS_PER_PAIR)
        );
    }
    let boxes = 100_000;
    if let (Some(ours), Some(bvh)) = (
        find("broad_phase", "sweep_and_prune", boxes),
        find("broad_phase", "parry2d_bvh_rebuild", boxes),
    ) {
        println!(
            "  broad phase, {boxes} moving boxes: {:.2} ms against parry2d's BVH build and \
             traversal {:.2} ms ({:.1}x): {}",
            ours * 1e3,
            bvh * 1e3,
            bvh / ours,
            verdict(ours <= bvh)
        );
    }
    for colliders in [10_000, 100_000] {
        let stage = format!("ray_cast/{colliders}");
        if let (Some(ours), Some(parry)) = (
            find(&stage, "cpu_1_thread", common::queries::RAYS_PER_CALL),
            find(&stage, "parry2d", common::queries::RAYS_PER_CALL),
        ) {
            let rate = |t: f64| common::queries::RAYS_PER_CALL as f64 / t;
            println!(
                "  ray casts, {colliders} colliders, one thread: {} rays/s against parry2d's BVH \
                 {} rays/s ({:.2}x): {}",
                si(rate(ours)),
                si(rate(parry)),
                parry / ours,
                verdict(ours <= parry)
            );
        }
        let stage = format!("ray_batch/{colliders}");
        let size = rows.iter().find(|r| r.stage == stage).map(|r| r.size);
        if let Some(size) = size
            && let (Some(gpu), Some(cpu)) = (
                find(&stage, "gpu", size),
                find(&stage, "cpu_1_thread", size),
            )
        {
            println!(
                "  ray batch, {size} (ray, collider) pairs of {colliders} colliders: GPU {:.2} ms \
                 against one CPU thread {:.2} ms ({:.2}x)",
                gpu * 1e3,
                cpu * 1e3,
                gpu / cpu
            );
        }
    }
    if let (Some(gpu), Some(cpu)) = (
        find("narrow_phase", "gpu", n),
        find("narrow_phase", "cpu_1_thread", n),
    ) {
        println!(
            "  GPU end to end, {n} pairs: {:.2} ms against one CPU thread {:.2} ms ({:.2}x): {}",
            gpu * 1e3,
            cpu * 1e3,
            gpu / cpu,
            verdict(gpu <= cpu)
        );
    }
}
