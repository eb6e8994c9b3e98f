//! Executions that stop when their caller says so, whatever gas they have
//! left: a call past its time budget, or one whose client hung up. Gas
//! alone bounds the work only in steps, and some steps cost far more time
//! per unit of gas than others.
//!
//! The EVM asks the caller's `stop` every [`CHECK_EVERY`] steps, in every
//! frame. Once it says yes, each frame halts at its next step and the run
//! ends with a context error, so a contract that catches a failed sub-call
//! cannot go on past the stop.

use revm::Inspector;
use revm::context::ContextError;
use revm::context_interface::ContextTr;
use revm::interpreter::{InstructionResult, Interpreter, interpreter::EthInterpreter};

/// Steps between two questions to `stop`: often enough that a loop halts
/// within microseconds, rarely enough that asking costs nothing measurable.
pub const CHECK_EVERY: u32 = 1024;

/// What the context error of a stopped run says (it never reaches a client:
/// the run's caller sees [`crate::Unfinished::Stopped`]).
const STOPPED: &str = "the execution was stopped by its caller";

/// The inspector that asks `stop` and halts every frame once it says yes.
pub(crate) struct Watch<'a> {
    stop: &'a dyn Fn() -> bool,
    steps: u64,
    /// Most steps the run may take (a trace that records each one).
    most_steps: Option<u64>,
    stopped: bool,
}

impl<'a> Watch<'a> {
    pub(crate) fn new(stop: &'a dyn Fn() -> bool) -> Watch<'a> {
        Watch { stop, steps: 0, most_steps: None, stopped: false }
    }

    /// A watch that also stops the run past `most` steps.
    pub(crate) fn at_most(stop: &'a dyn Fn() -> bool, most: u64) -> Watch<'a> {
        Watch { most_steps: Some(most), ..Watch::new(stop) }
    }

    /// Whether the run was stopped for taking more steps than it may.
    pub(crate) fn too_long(&self) -> bool {
        self.most_steps.is_some_and(|most| self.steps > most)
    }

    /// Whether the run was stopped.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }
}

impl<CTX: ContextTr> Inspector<CTX, EthInterpreter> for Watch<'_> {
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut CTX) {
        if !self.stopped {
            self.steps += 1;
            // Asked at the first step too, so that a stop given before the run
            // begins (a timeout already past) halts even a short one.
            if !self.too_long() && (self.steps % u64::from(CHECK_EVERY) != 1 || !(self.stop)()) {
                return;
            }
            self.stopped = true;
        }
        // The error ends the whole run as each frame returns to its parent;
        // halting the frame makes it return now.
        *context.error() = Err(ContextError::Custom(STOPPED.into()));
        interp.halt(InstructionResult::OutOfGas);
    }
}
