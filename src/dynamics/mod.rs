//! Dynamics: how bodies move once collision has found their contacts.
//!
//! ```text
//! body.rs        a body's static record (mass, type, flags, its colliders) that every
//!                stage below reads; it knows nothing of the world
//! body_set.rs   the bodies, a part of the world: records, poses, velocities, materials
//!                and forces as a struct of arrays by body slot
//! collider_set.rs the colliders, a part of the world: shape entry and pose, box, filter,
//!                sensor flag, surface and density by collider slot
//! solver/        the soft step: constraints coloured, contacts four to a SIMD group,
//!                per substep integrate velocities, warm start, solve, integrate
//!                positions, relax, then restitution; the step's stages run together on
//!                the pool (stages.rs)
//! joints/        joint definitions (JointDef) and one file per joint kind with its
//!                prepare, warm start and solve
//! forces.rs      a body's applied force and torque, gravity scale and damping, and
//!                their integration in a substep
//! continuous.rs  fast bodies swept from where the step began them to where the solver
//!                left them, stopped at the first time of impact
//! sleep.rs       islands of touching bodies that stay slow stop being simulated
//! state.rs       a body's velocity state in a step, soft-constraint coefficients, and the
//!                speed, spin and impulse bounds that the solver and the joints share
//! ```

pub(crate) mod body;
pub(crate) mod body_set;
pub(crate) mod collider_set;
pub(crate) mod continuous;
pub(crate) mod forces;
pub(crate) mod joints;
pub(crate) mod sleep;
pub(crate) mod solver;
pub(crate) mod state;

pub use joints::{JointBroken, JointDef, JointFrame, JointId, JointKind, JointMotor, JointSpring};
pub use solver::{COLOURS, ConstraintColouring, ContactKey, JointKey, LEFT_OUT, OVERFLOW};
