//! The colouring's WGSL checked against the Rust side: it validates, its uniform is its
//! mirror's size, its constants are the host's, and its twins have the host's names.

use super::*;
use std::mem::offset_of;

use crate::dynamics::solver::{COLOURS, LEFT_OUT, VISIT_SEED};
use crate::dynamics::state::BodyState;
use crate::gpu::contact_input::ContactInputGpu;
use crate::gpu::world::wgsl_checks::{literals, struct_size, validated};

fn module() -> naga::Module {
    validated(COLOURING_WGSL)
}

#[test]
fn colouring_wgsl_validates_and_its_params_match_their_mirror() {
    let m = module();
    assert_eq!(
        struct_size(&m, "ColourParams"),
        size_of::<ColourParamsGpu>()
    );
}

/// The constants `colouring.wgsl` repeats are the Rust side's, and the helpers that
/// are the host's steps have their twins' names.
#[test]
fn colouring_constants_and_names_match_the_rust_side() {
    let m = module();
    let value = |name: &str| -> Vec<u32> {
        (literals(&m, name).into_iter())
            .map(|v| match v {
                naga::Literal::U32(v) => v,
                other => panic!("{name}: {other:?}"),
            })
            .collect()
    };
    assert_eq!(value("COLOUR_COUNT"), [COLOURS as u32]);
    assert_eq!(value("LEFT_OUT"), [u32::from(LEFT_OUT)]);
    assert_eq!(value("UNDECIDED"), [u32::from(super::UNDECIDED)]);
    assert_eq!(value("COUNTERS"), [COUNTERS as u32]);
    assert_eq!(
        value("VISIT_SEED"),
        [VISIT_SEED as u32, (VISIT_SEED >> 32) as u32]
    );
    // colour_input reads the solver's records as words.
    let words = |bytes: usize| [bytes as u32 / 4];
    assert_eq!(value("STATE_WORDS"), words(size_of::<BodyState>()));
    assert_eq!(
        value("STATE_INV_MASS"),
        words(offset_of!(BodyState, inv_mass))
    );
    assert_eq!(value("CONTACT_WORDS"), words(size_of::<ContactInputGpu>()));
    assert_eq!(
        value("CONTACT_BODIES"),
        words(offset_of!(ContactInputGpu, bodies))
    );
    assert_eq!(
        value("CONTACT_KEY"),
        words(offset_of!(ContactInputGpu, key))
    );
    let rust = include_str!("../../../dynamics/solver/colouring.rs");
    for name in ["mix", "shuffle", "used"] {
        assert!(
            m.functions
                .iter()
                .any(|(_, f)| f.name.as_deref() == Some(name))
                || m.entry_points.iter().any(|e| e.name == name),
            "colouring.wgsl lacks fn {name}"
        );
        assert!(rust.contains(&format!("fn {name}(")), "no Rust twin {name}");
    }
}
