//! [`GpuColouring`]: the world's constraint colouring on the GPU (`shaders/colouring.wgsl`),
//! giving every constraint the colour its CPU twin
//! ([`ConstraintColouring`](crate::dynamics::ConstraintColouring), the world's own) gives,
//! step after step, with last step's colours kept on the device.
//!
//! ```text
//! colour(contacts, joints, moving):
//!     check the input as the twin does; up: the moving bits and 16 bytes per constraint
//!     one submit:
//!         colour_clear; colour_start (states, counts per moving body); scan; adjacency_fill
//!         keep_round x rounds[0], keep_finish      (who keeps last step's colour)
//!         fresh_flags, scan, fresh_compact, shuffle, fresh_visit  (the visit order)
//!         fresh_round x rounds[1] (over the new constraints: an indirect dispatch of
//!             the count the shuffle wrote), fresh_finish    (the greedy colours)
//!         colour_store: (colour, index) items, and this step's list for the next
//!             (ping-pong)
//!         a radix sort of the items by colour (one 8-bit pass, stable), order_store: the
//!             solve order, on the device for the solver (order_buffer)
//!         colour_ranges: per colour its contacts' range in the order and its joints' in
//!             the joint order, and the solver's workgroups for each (binary searches of
//!             the sorted items); joint_order_store: the joint order; colour_pack: the
//!             colours, four to a word, for the GPU world's readback (solve_buffers,
//!             packed_colours)
//! read_colours(): the colours, the order, the ranges and the joint order back (16 bytes
//!     a constraint), and which finishers ran
//! ```
//!
//! This is the first of the host's stages of the GPU world's step to run on the device
//! (issue 33: a step with no readback). The GPU world colours each step here, from the
//! device's own last step or the host's (`step.rs`), and the host no longer colours; the
//! input is still sent from the host, and the next slices make it from the device's
//! contact list.
//!
//! Why a fixed number of rounds: a round is a dispatch, and WGSL has no way to loop until
//! done without the host (no forward progress between workgroups). Each round decides
//! every constraint whose dependencies are decided, and sees the decisions made earlier in
//! it, so the rounds needed depend on the order the invocations ran in: the new
//! constraints' rounds run over the fresh list in visit order (an indirect dispatch of as
//! many as there are), and on llvmpipe, which runs workgroups about in order, the tests'
//! walls needed no finisher with the default rounds. Whatever the rounds leave, the
//! finishers decide in the host's order, one invocation a chunk, so the colours never
//! depend on the number of rounds.

mod kernels;
mod read;
mod step;

pub use read::GpuColours;
pub(crate) use step::ColourBounds;

use super::layout::ColourParamsGpu;
use crate::broad_phase::radix_sort::{RADIX_DIGITS, radix_tile_count};
use crate::broad_phase::scan::scan_tile_count;
use crate::dynamics::COLOURS;
use crate::dynamics::solver::{ContactKey, JointKey, check_colouring_input};
use crate::error::{Error, GpuError};
use crate::gpu::plan::{
    BindKey, Kernel, PARAMS_SLOT, Plan, RadixKernels, Workgroups, push_radix_sort, push_scan,
    record,
};
use crate::gpu::plumbing::GrowingBuffer;
use crate::gpu::world::resident::ResidentList;
use kernels::Kernels;

/// The WGSL of the colouring: `shaders/u64.wgsl` (64-bit integers on word pairs), then
/// `shaders/colouring.wgsl`.
pub const COLOURING_WGSL: &str = concat!(
    include_str!("../../../../shaders/u64.wgsl"),
    include_str!("../../../../shaders/colouring.wgsl")
);

/// Invocations per workgroup, as the kernels declare.
const WORKGROUP: u32 = 64;
/// The uniform's binding, and its size.
const PARAMS: (u32, usize) = (8, size_of::<ColourParamsGpu>());
/// The bindings, as `colouring.wgsl` numbers them.
const INPUT: u32 = 0;
const PREVIOUS: u32 = 1;
const OFFSETS: u32 = 2;
const ADJACENCY: u32 = 3;
const WORK: u32 = 4;
const FRESH: u32 = 5;
const NEXT: u32 = 6;
const ITEMS: u32 = 7;
const SORTED: u32 = 9;
const ORDER: u32 = 10;
const ARGS: u32 = 11;
const RANGES: u32 = 12;
const JOINT_ORDER: u32 = 13;
const SOLVE_ARGS: u32 = 14;
const PACKED: u32 = 15;
const INPUT_OUT: u32 = 16;
const STATE_WORDS: u32 = 17;
const CONTACT_WORDS: u32 = 18;
/// Bytes of the per-colour ranges (four words a colour, the overflow's last) and of the
/// solver's workgroups (six words a colour).
const RANGE_BYTES: u64 = 16 * (COLOURS as u64 + 1);
const SOLVE_ARG_BYTES: u64 = 24 * (COLOURS as u64 + 1);
/// The colour the device gives a constraint that its finishers left undecided: only where
/// llvmpipe cut their loops short (docs/reliability.md). Such a constraint is in no
/// colour's range, and the GPU world fails the step (the host solves it).
pub(crate) const UNDECIDED: u8 = 254;
/// Words at the head of `work`: the rounds that left constraints undecided, and counts.
const COUNTERS: usize = 4;
/// Items per dispatch of the serial kernels: llvmpipe ends a shader's loops after 65,535
/// iterations in all (counted across every loop of an invocation), so a serial kernel
/// takes its work a chunk a dispatch. A swap of the shuffle is one iteration; a finisher's
/// step is one, plus a walk of its bodies' lists for a constraint the rounds left
/// (rare: see the module notes), so its chunks are smaller.
const SHUFFLE_CHUNK: usize = 32_768;
const FINISH_CHUNK: usize = 4_096;
/// Levels of scan tile sums: three cover 16.7 million counts.
const SCAN_LEVELS: usize = 3;
/// Rounds before the finishers, by default: a kept colour conflicts only where a body
/// started to move, so one round settles nearly all; the new constraints' rounds run over
/// them in visit order, so a round decides runs of them (see the module notes). Each
/// round is a dispatch, and on llvmpipe a dispatch has a cost of its own: a 5,000-body
/// pile's GPU world step took 126 ms with 2 and 24, against 95 without the device's
/// colouring, in one sitting; 101 with these, against 93 (the means of two runs each).
pub const DEFAULT_ROUNDS: [u32; 2] = [1, 8];

/// The constraint colouring of [`ConstraintColouring`](crate::dynamics::ConstraintColouring)
/// on a wgpu device: the same colour for every constraint, step after step, with last
/// step's colours kept on the device. It borrows the host's device and queue.
///
/// ```no_run
/// use wgpu_sat::gpu::GpuColouring;
/// let (device, queue) = wgpu_sat::request_device()?;
/// let mut colouring = GpuColouring::new(&device, &queue);
/// let contacts = [([0, 1], [0, 1]), ([1, 2], [1, 2])];
/// colouring.colour(&contacts, &[], &[false, true, true])?;
/// let read = colouring.read_colours()?;
/// assert_ne!(read.colours[0], read.colours[1]); // both act on body 1
/// # Ok::<(), wgpu_sat::Error>(())
/// ```
pub struct GpuColouring {
    device: wgpu::Device,
    queue: wgpu::Queue,
    kernels: Kernels,
    input: GrowingBuffer,
    /// Last step's list and this step's: `previous[current]` holds last step's.
    previous: [GrowingBuffer; 2],
    current: usize,
    previous_count: usize,
    offsets: GrowingBuffer,
    adjacency: GrowingBuffer,
    work: GrowingBuffer,
    fresh: GrowingBuffer,
    /// (colour, index) per constraint, and the same sorted by colour: the radix sort's two.
    items: [GrowingBuffer; 2],
    tile_counts: GrowingBuffer,
    order: GrowingBuffer,
    /// Per colour its contacts' and joints' ranges, the joint slots by colour, the solver's
    /// workgroups per colour, and the colours packed for the host (`colour_ranges`,
    /// `joint_order_store`, `colour_pack`).
    ranges: wgpu::Buffer,
    joint_order: GrowingBuffer,
    solve_args: wgpu::Buffer,
    packed: GrowingBuffer,
    /// The fresh rounds' workgroups (`dispatch_workgroups_indirect`'s three words).
    args: wgpu::Buffer,
    sums: [GrowingBuffer; SCAN_LEVELS],
    zero: wgpu::Buffer,
    params: GrowingBuffer,
    readback: GrowingBuffer,
    bind_groups: Vec<(BindKey, wgpu::BindGroup)>,
    rounds: [u32; 2],
    count: usize,
    words: Vec<u32>,
    /// The GPU world's joints' items (four words each), kept on the device and sent when
    /// they change, and where this step's copy of them goes in `input` (bytes: at, length):
    /// their place there follows the step's contacts.
    joint_items: ResidentList<[u32; 4]>,
    item_scratch: Vec<[u32; 4]>,
    joint_copy: Option<(u64, u64)>,
    /// Bytes the last call sent up.
    pub(crate) sent: u64,
    /// The last input's contacts, bodies and words of moving bits.
    shape: [usize; 3],
    /// In the GPU world: the stamp of the host's colouring whose colours are the last
    /// step's here (`ConstraintGraph::stamps`), or `None` when they may differ.
    follows: Option<u64>,
    /// The host colouring's stamp of a step whose passes were asked for and have not run.
    pending: Option<u64>,
    /// Whether the last [`GpuColouring::colour_step`] started from the host's last step
    /// (sent up), rather than the device's own.
    pub(crate) seeded: bool,
    /// The GPU world's step's joints (the rest of its input is made on the device).
    step_joints: Vec<JointKey>,
    /// In the GPU world: how many colours the last step's list uses (one past its highest
    /// below the overflow), as the host knows them (`colouring/step.rs`).
    previous_colours: usize,
    /// The GPU world's scratch: per body, this step's constraints on it.
    degrees: Vec<u32>,
}

impl GpuColouring {
    /// A colouring on `device` with no last step, running [`DEFAULT_ROUNDS`].
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> GpuColouring {
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer =
            |what: &str| GrowingBuffer::new(device, format!("wgpu-sat colouring {what}"), storage);
        let zero = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sat colouring scan base"),
            size: 256,
            usage: storage,
            mapped_at_creation: false,
        });
        GpuColouring {
            device: device.clone(),
            queue: queue.clone(),
            kernels: Kernels::new(device),
            input: buffer("input"),
            joint_items: ResidentList::new(buffer("joint items")),
            item_scratch: Vec::new(),
            joint_copy: None,
            previous: [buffer("list"), buffer("list 2")],
            current: 0,
            previous_count: 0,
            offsets: buffer("offsets"),
            adjacency: buffer("adjacency"),
            work: buffer("work"),
            fresh: buffer("fresh"),
            items: [buffer("items"), buffer("items 2")],
            tile_counts: buffer("tile counts"),
            order: buffer("order"),
            ranges: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat colouring ranges"),
                size: RANGE_BYTES,
                usage: storage,
                mapped_at_creation: false,
            }),
            joint_order: buffer("joint order"),
            solve_args: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat colouring solver workgroups"),
                size: SOLVE_ARG_BYTES,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
                mapped_at_creation: false,
            }),
            packed: buffer("packed colours"),
            args: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-sat colouring round workgroups"),
                size: 16,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
                mapped_at_creation: false,
            }),
            sums: [buffer("sums"), buffer("sums 2"), buffer("sums 3")],
            zero,
            params: GrowingBuffer::new(
                device,
                "wgpu-sat colouring params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            readback: GrowingBuffer::new(
                device,
                "wgpu-sat colouring readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            bind_groups: Vec::new(),
            rounds: DEFAULT_ROUNDS,
            count: 0,
            words: Vec::new(),
            sent: 0,
            shape: [0; 3],
            follows: None,
            pending: None,
            seeded: false,
            step_joints: Vec::new(),
            previous_colours: 0,
            degrees: Vec::new(),
        }
    }

    /// Sets the parallel rounds run before the keep and the fresh finishers (the colours
    /// are the same for any number, 0 included: the finishers decide what the rounds left).
    pub fn set_rounds(&mut self, rounds: [u32; 2]) {
        self.rounds = rounds;
    }

    /// Colours a step's `contacts` (keys ascending) and `joints` (slots ascending) between
    /// bodies of which `moving` says which move, as
    /// [`ConstraintColouring::colour`](crate::dynamics::ConstraintColouring::colour) does,
    /// the colours kept on the device for the next step. Bad input is refused with the
    /// twin's error, and the last step's colours stay. When the device fails, the error is
    /// returned and the last step is forgotten: the next call colours every constraint as
    /// new.
    pub fn colour(
        &mut self,
        contacts: &[ContactKey],
        joints: &[JointKey],
        moving: &[bool],
    ) -> Result<(), Error> {
        if !self.prepare(contacts, joints, moving)? {
            return Ok(());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.submit();
        if let Some(error) = pollster::block_on(scope.pop()) {
            self.previous_count = 0;
            return Err(Error::Gpu(GpuError::Device(error.to_string())));
        }
        self.finish();
        Ok(())
    }

    /// Checks a step's input and sends it up, with room for its passes. Returns whether it
    /// has passes to run ([`GpuColouring::push`], then [`GpuColouring::finish`]); a step with
    /// no constraint has none, and is done.
    fn prepare(
        &mut self,
        contacts: &[ContactKey],
        joints: &[JointKey],
        moving: &[bool],
    ) -> Result<bool, Error> {
        check_colouring_input(contacts, joints, moving.len())?;
        let host = Some((contacts, moving));
        self.start(contacts.len(), moving.len(), joints, host)
    }

    /// A step of `contacts` contacts and the `joints` between `bodies` bodies, checked
    /// against the device's limits and sent up (the contacts and moving bits too when
    /// `host` has them), with room for its passes. Returns whether it has passes to run; a
    /// step with no constraint has none, and is done.
    fn start(
        &mut self,
        contacts: usize,
        bodies: usize,
        joints: &[JointKey],
        host: Option<(&[ContactKey], &[bool])>,
    ) -> Result<bool, Error> {
        let count = contacts + joints.len();
        self.check_limits(count, bodies)?;
        self.count = count;
        if count == 0 {
            (self.previous_count, self.previous_colours) = (0, 0);
            self.sent = 0;
            self.joint_copy = None;
            self.shape = [0; 3];
            return Ok(false);
        }
        self.upload(contacts, bodies, joints, host);
        Ok(true)
    }

    /// The step's passes ran: its list becomes the last step's.
    fn finish(&mut self) {
        self.current = 1 - self.current;
        self.previous_count = self.count;
    }

    /// Refuses a step that a binding or a dispatch cannot hold, before anything changes.
    fn check_limits(&self, count: usize, bodies: usize) -> Result<(), Error> {
        let limits = self.device.limits();
        let bytes = limits.max_storage_buffer_binding_size;
        let groups = limits.max_compute_workgroups_per_dimension as usize * WORKGROUP as usize;
        // The largest per-item bindings: the input (16 bytes a constraint), the work list
        // (12) and the adjacency (8, with 4 a body).
        for (what, items, each) in [("constraints", count, 16), ("bodies", bodies, 8)] {
            let max = ((bytes / each) as usize).min(groups - 1);
            if items > max {
                return Err(Error::Gpu(GpuError::TooLarge {
                    what,
                    count: items,
                    max,
                }));
            }
        }
        Ok(())
    }

    /// The step's input up (the moving bits, 16 bytes a constraint; with no `host` lists,
    /// the joints' items that changed, kept on the device: it makes the rest), and room
    /// for its passes.
    fn upload(
        &mut self,
        contacts: usize,
        bodies: usize,
        joints: &[JointKey],
        host: Option<(&[ContactKey], &[bool])>,
    ) {
        let device = &self.device;
        let count = self.count;
        let moving_words = bodies.div_ceil(32);
        self.words.clear();
        if let Some((contacts, moving)) = host {
            self.words.resize(moving_words, 0);
            for (body, _) in moving.iter().enumerate().filter(|(_, m)| **m) {
                self.words[body / 32] |= 1 << (body % 32);
            }
            for &(key, [a, b]) in contacts {
                self.words.extend([key[0], key[1], a, b]);
            }
        }
        let items = joints.iter().map(|&(slot, [a, b])| [u32::MAX, slot, a, b]);
        // Where the words sent go; the joints' items follow the contacts'. With the host's
        // lists they go up with them; else they are kept on the device, and copied there.
        let mut items_sent = 0;
        let at = if host.is_some() {
            self.words.extend(items.flatten());
            self.joint_copy = None;
            0
        } else {
            self.item_scratch.clear();
            self.item_scratch.extend(items);
            let cap = u64::MAX;
            items_sent = self
                .joint_items
                .write(device, &self.queue, &self.item_scratch, cap);
            let at = 4 * (moving_words + 4 * contacts) as u64;
            self.joint_copy = Some((at, 16 * joints.len() as u64));
            0
        };
        let size = |words: usize| (4 * words.max(1)) as u64;
        let cap = u64::MAX;
        self.input
            .reserve(device, size(moving_words + 4 * count), cap);
        self.previous[1 - self.current].reserve(device, size(4 * count), cap);
        self.offsets.reserve(device, size(bodies + 1), cap);
        self.adjacency
            .reserve(device, size(bodies + 2 * count), cap);
        self.work.reserve(device, size(COUNTERS + 3 * count), cap);
        self.fresh.reserve(device, size(count + 1), cap);
        for items in &mut self.items {
            items.reserve(device, size(2 * count), cap);
        }
        let radix_counts = RADIX_DIGITS * radix_tile_count(count);
        self.tile_counts.reserve(device, size(radix_counts), cap);
        self.order.reserve(device, size(count), cap);
        self.joint_order.reserve(device, size(joints.len()), cap);
        self.packed.reserve(device, size(count.div_ceil(4)), cap);
        let mut len = (count + 1).max(bodies + 1).max(radix_counts);
        for level in &mut self.sums {
            len = scan_tile_count(len);
            level.reserve(device, size(len), cap);
        }
        // Two scans of up to 7 dispatches, a radix pass of up to 9, a dozen others, the
        // rounds, the serial kernels' chunks.
        let chunks = 2 * count.div_ceil(FINISH_CHUNK) + contacts.div_ceil(SHUFFLE_CHUNK);
        let dispatches = 48 + self.rounds[0] as u64 + self.rounds[1] as u64 + chunks as u64;
        self.params.reserve(device, dispatches * PARAMS_SLOT, cap);
        if !self.words.is_empty() {
            let words = bytemuck::cast_slice(&self.words);
            self.queue
                .write_buffer(&self.input.buffer, 4 * at as u64, words);
        }
        self.sent = 4 * self.words.len() as u64 + items_sent;
        self.shape = [contacts, bodies, moving_words];
    }

    /// Adds the step's passes (see the module notes) to `plan`: the caller records them in
    /// a pass of its own, then calls [`GpuColouring::finish`] once they ran.
    pub(in crate::gpu) fn push<'a>(&'a self, plan: &mut Plan<'a>) {
        let [contacts, bodies, moving_words] = self.shape;
        let count = self.count;
        let k = &self.kernels;
        let base = ColourParamsGpu {
            count: count as u32,
            contacts: contacts as u32,
            bodies: bodies as u32,
            moving_words: moving_words as u32,
            previous: self.previous_count as u32,
            ..ColourParamsGpu::default()
        };
        let with = |round: u32, len: usize| ColourParamsGpu {
            round,
            len: len as u32,
            ..base
        };
        let (input, offsets, adjacency, work, fresh) = (
            &self.input.buffer,
            &self.offsets.buffer,
            &self.adjacency.buffer,
            &self.work.buffer,
            &self.fresh.buffer,
        );
        let walk = [
            (INPUT, input),
            (OFFSETS, offsets),
            (ADJACENCY, adjacency),
            (WORK, work),
        ];
        let list = [(WORK, work), (FRESH, fresh)];
        let scan = [&k.scan_reduce, &k.scan_tiles];
        let per_constraint = groups(count);
        let clear = (bodies + 1).max(COUNTERS);
        let clear_bindings = [(OFFSETS, offsets), (ADJACENCY, adjacency), (WORK, work)];
        plan.push(
            &k.colour_clear,
            &clear_bindings,
            with(0, clear),
            groups(clear),
        );
        let start = [
            (INPUT, input),
            (PREVIOUS, &self.previous[self.current].buffer),
            (OFFSETS, offsets),
            (WORK, work),
        ];
        plan.push(&k.colour_start, &start, with(0, count), per_constraint);
        push_scan(plan, scan, &self.sums, &self.zero, offsets, bodies + 1);
        let fill = [(INPUT, input), (OFFSETS, offsets), (ADJACENCY, adjacency)];
        plan.push(&k.adjacency_fill, &fill, with(0, count), per_constraint);
        for round in 1..=self.rounds[0] {
            plan.push(&k.keep_round, &walk, with(round, count), per_constraint);
        }
        push_chunks(
            plan,
            (&k.keep_finish, &walk),
            with(self.rounds[0], 0),
            count,
            FINISH_CHUNK,
        );
        plan.push(&k.fresh_flags, &list, with(0, count + 1), groups(count + 1));
        push_scan(plan, scan, &self.sums, &self.zero, fresh, count + 1);
        plan.push(&k.fresh_compact, &list, with(0, count), per_constraint);
        let swaps = contacts.max(1);
        let shuffle = [(WORK, work), (FRESH, fresh), (ARGS, &self.args)];
        push_chunks(
            plan,
            (&k.shuffle, &shuffle),
            with(0, 0),
            swaps,
            SHUFFLE_CHUNK,
        );
        plan.push(&k.fresh_visit, &list, with(0, count), per_constraint);
        // The new constraints only: few in a warm step.
        let new = Workgroups::Indirect(&self.args, 0);
        for round in 1..=self.rounds[1] {
            plan.push_with(&k.fresh_round, &walk, with(round, count), new);
        }
        push_chunks(
            plan,
            (&k.fresh_finish, &walk),
            with(self.rounds[1], 0),
            count,
            FINISH_CHUNK,
        );
        let store = [
            (INPUT, input),
            (WORK, work),
            (NEXT, &self.previous[1 - self.current].buffer),
            (ITEMS, &self.items[0].buffer),
        ];
        plan.push(&k.colour_store, &store, with(0, count), per_constraint);
        // One pass of eight bits: colours are below 256. Stable, so each colour's
        // constraints stay in constraint order, as the host's counting sort leaves them.
        let radix = RadixKernels {
            count: &k.radix_count,
            scatter: &k.radix_scatter,
            scan,
        };
        let items = [&self.items[0].buffer, &self.items[1].buffer];
        let scans = (&self.sums[..], &self.zero);
        let counts = &self.tile_counts.buffer;
        let sorted = push_radix_sort(plan, &radix, counts, scans, items, 0, count, 8);
        let order = [(SORTED, items[sorted]), (ORDER, &self.order.buffer)];
        plan.push(&k.order_store, &order, with(0, count), per_constraint);
        let (ranges, joint_order) = (&self.ranges, &self.joint_order.buffer);
        let solve_args = [
            (SORTED, items[sorted]),
            (RANGES, ranges),
            (SOLVE_ARGS, &self.solve_args),
        ];
        plan.push(&k.colour_ranges, &solve_args, with(0, 0), 1);
        if count > contacts {
            let joints = [
                (INPUT, input),
                (SORTED, items[sorted]),
                (RANGES, ranges),
                (JOINT_ORDER, joint_order),
            ];
            plan.push(
                &k.joint_order_store,
                &joints,
                with(0, count),
                per_constraint,
            );
        }
        let pack = [(WORK, work), (PACKED, &self.packed.buffer)];
        plan.push(
            &k.colour_pack,
            &pack,
            with(0, count),
            groups(count.div_ceil(4)),
        );
    }

    /// The step's passes in a submit of their own.
    fn submit(&mut self) {
        let mut cache = std::mem::take(&mut self.bind_groups);
        let mut plan = Plan::default();
        self.push(&mut plan);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-sat colouring"),
            });
        let params = &self.params;
        self.sent += record(
            &self.device,
            &self.queue,
            &mut encoder,
            params,
            &mut cache,
            plan,
            None,
        );
        self.queue.submit([encoder.finish()]);
        self.bind_groups = cache;
    }
}

fn groups(count: usize) -> u32 {
    (count as u32).div_ceil(WORKGROUP)
}

/// Dispatches of one invocation of a serial kernel, each taking the next `chunk` of
/// `items` (at least one dispatch), in order.
fn push_chunks<'a>(
    plan: &mut Plan<'a>,
    (kernel, bindings): (&'a Kernel, &[(u32, &'a wgpu::Buffer)]),
    params: ColourParamsGpu,
    items: usize,
    chunk: usize,
) {
    for first in (0..items.max(1)).step_by(chunk) {
        let params = ColourParamsGpu {
            first: first as u32,
            len: chunk as u32,
            ..params
        };
        plan.push(kernel, bindings, params, 1);
    }
}

#[cfg(test)]
mod tests;
