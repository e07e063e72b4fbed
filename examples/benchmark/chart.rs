//! The chart: time against size, log-log, one panel per stage, one colour per backend.

use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;

use crate::{Row, ms};

/// Compact axis labels: 1k, 30k, 1M.
fn axis_label(x: f64) -> String {
    match x {
        x if x >= 1e6 => format!("{}M", x / 1e6),
        x if x >= 1e3 => format!("{}k", x / 1e3),
        x => format!("{x}"),
    }
}

/// One colour per backend, the same in every panel.
fn colour(backend: &str) -> RGBColor {
    match backend {
        "cpu_1_thread" | "sweep_and_prune" => RGBColor(31, 119, 180),
        "cpu_parallel" => RGBColor(44, 160, 44),
        "gpu" => RGBColor(214, 39, 40),
        "gpu_kernel" => RGBColor(255, 127, 14),
        "parry2d" | "parry2d_bvh_rebuild" => RGBColor(148, 103, 189),
        // The Box2D comparison: ours in blues and greens, Box2D in oranges and reds.
        "wgpu_sat_1_thread" => RGBColor(31, 119, 180),
        "wgpu_sat_2_threads" => RGBColor(44, 160, 44),
        "wgpu_sat_all_cores" => RGBColor(23, 190, 207),
        "wgpu_sat_in_pool_1_thread" => RGBColor(174, 199, 232),
        "wgpu_sat_in_pool_2_threads" => RGBColor(152, 223, 138),
        "wgpu_sat_in_pool_all_cores" => RGBColor(158, 218, 229),
        "box2d_1_thread" => RGBColor(255, 127, 14),
        "box2d_2_threads" => RGBColor(214, 39, 40),
        "box2d_all_cores" => RGBColor(227, 119, 194),
        // The GPU world's panel: the CPU world, the GPU world (pair set on the device, on
        // the host), Box2D.
        "cpu_world" => RGBColor(44, 160, 44),
        "gpu_world" => RGBColor(214, 39, 40),
        "gpu_world_host_pairs" => RGBColor(255, 152, 150),
        "box2d" => RGBColor(255, 127, 14),
        _ => RGBColor(140, 86, 75), // parry2d_bvh_refit
    }
}

/// A series of one panel: (size, ms) points of one backend.
struct Series {
    label: String,
    colour: RGBColor,
    points: Vec<(f64, f64)>,
    /// `None`: a line with circles; `Some(size)`: triangles alone (one scene size), drawn
    /// smaller for each later backend so that equal times stay visible, one in another.
    triangles: Option<u32>,
}

fn series(rows: &[Row], stage: &str, kernel: bool) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in rows.iter().filter(|r| r.stage == stage) {
        let mut push = |label: &str, t: Duration| {
            let point = (r.size as f64, ms(t));
            match out.iter_mut().find(|s| s.label == label) {
                Some(s) => s.points.push(point),
                None => out.push(Series {
                    label: label.to_string(),
                    colour: colour(label),
                    points: vec![point],
                    triangles: None,
                }),
            }
        };
        push(r.backend, r.median);
        if let (true, Some(k)) = (kernel, r.kernel) {
            push("gpu_kernel", k);
        }
    }
    out
}

/// The Box2D comparison's whole steps: one line per engine and thread count through the
/// scenes, by body count.
fn versus_series(rows: &[Row]) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.stage.starts_with("world_step_vs_box2d/"))
    {
        let point = (r.size as f64, ms(r.median));
        match out.iter_mut().find(|s| s.label == r.backend) {
            Some(s) => s.points.push(point),
            None => out.push(Series {
                label: r.backend.to_string(),
                colour: colour(r.backend),
                points: vec![point],
                triangles: None,
            }),
        }
    }
    // Markers alone: the points are different scenes, and a line between them would read
    // as a trend with size. Smaller for each later series, so equal times stay visible.
    for (i, s) in out.iter_mut().enumerate() {
        s.triangles = Some(11u32.saturating_sub(2 * i as u32).max(3));
    }
    out
}

pub fn chart(rows: &[Row], adapter: &str, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (2400, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    // The adapter line carries the software-adapter warning where it applies.
    let title = format!("wgpu-sat: median time per call, log-log. {adapter}");
    let (top, body) = root.split_vertically(50);
    top.titled(&title, ("sans-serif", 20))?;
    let panels = body.split_evenly((1, 4));

    // Whole steps only: the kernel time of a step's narrow phase is in the table, but next
    // to whole-step times it would read as one.
    let mut world = series(rows, "world_step/pile", false);
    // The pyramid is one size: its points join the pile panel as triangles, one per
    // backend, in the backend's colour.
    for (i, mut s) in series(rows, "world_step/large_pyramid", false)
        .into_iter()
        .enumerate()
    {
        s.label = format!("{} (large_pyramid)", s.label);
        s.triangles = Some(11u32.saturating_sub(3 * i as u32).max(3));
        world.push(s);
    }
    let stages = [
        ("narrow_phase: pairs", series(rows, "narrow_phase", true)),
        (
            "broad_phase: moving boxes",
            series(rows, "broad_phase", false),
        ),
        ("world_step (pile; triangles: large_pyramid): bodies", world),
        (
            "world_step vs Box2D, ms per step (one scene per body count)",
            versus_series(rows),
        ),
    ];
    for (area, (caption, data)) in panels.iter().zip(stages) {
        panel(area, caption, &data)?;
    }
    root.present()?;
    Ok(())
}

fn panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    data: &[Series],
) -> Result<(), Box<dyn std::error::Error>> {
    let points = data.iter().flat_map(|s| &s.points);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return Ok(()); // nothing measured for this stage
    }
    // Some room around the data, in log space.
    let (x0, x1, y0, y1) = (x0 / 1.5, x1 * 1.5, y0 / 2.0, y1 * 2.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("size")
        .y_desc("median ms per call")
        // Few labels: a panel spanning one decade would otherwise label every tick.
        .x_labels(8)
        .y_labels(10)
        .light_line_style(BLACK.mix(0.04))
        .x_label_formatter(&|x| axis_label(*x))
        .y_label_formatter(&|y| {
            if *y >= 1.0 {
                format!("{y:.0}")
            } else {
                format!("{y:.2}")
            }
        })
        .label_style(("sans-serif", 13))
        .draw()?;
    for s in data {
        let style = s.colour.stroke_width(2);
        if let Some(size) = s.triangles {
            let c = s.colour;
            chart
                .draw_series(
                    s.points
                        .iter()
                        .map(|&p| TriangleMarker::new(p, size, c.filled())),
                )?
                .label(&s.label)
                .legend(move |(x, y)| TriangleMarker::new((x + 9, y), 6, c.filled()));
        } else {
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), style))?
                .label(&s.label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
            chart.draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(p, 3, s.colour.filled())),
            )?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}
