//! The logs of a simulated call as geth's simulator collects them: by
//! frame, so a frame that fails takes its logs with it, and, when asked,
//! each native transfer as an ERC-20 `Transfer` log of 0xeeee…eeee
//! (ERC-7528), in the order it happened among the logs. Positions count
//! every log collected in the block, kept or not, as geth counts them.

use alloy_primitives::{Address, B256, Bytes, Log, U256, address, b256};
use revm::Inspector;
use revm::context_interface::ContextTr;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::{CallInputs, CallOutcome, CallScheme, CreateInputs, CreateOutcome, Interpreter};

use crate::watch::Watch;

/// Where native transfers are logged from (ERC-7528).
pub const NATIVE_TOKEN: Address = address!("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");

/// `Transfer(address,address,uint256)`.
const TRANSFER: B256 = b256!("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");

/// A log collected, with its position in the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collected {
    /// The log.
    pub log: Log,
    /// Its position among every log collected in the block.
    pub index: u64,
}

#[derive(Default)]
struct Frame {
    logs: Vec<Collected>,
    /// The transfer log of a contract creation, whose recipient is known
    /// only once the contract is made.
    created: Option<usize>,
}

/// The collector, which also stops the run when its caller says so.
pub(crate) struct CallLogs<'a> {
    watch: Watch<'a>,
    transfers: bool,
    frames: Vec<Frame>,
    count: u64,
}

impl<'a> CallLogs<'a> {
    pub(crate) fn new(stop: &'a dyn Fn() -> bool, transfers: bool) -> CallLogs<'a> {
        CallLogs { watch: Watch::new(stop), transfers, frames: Vec::new(), count: 0 }
    }

    /// Whether the caller stopped the run.
    pub(crate) fn stopped(&self) -> bool {
        self.watch.stopped()
    }

    /// The logs of the call that ran last; the next starts empty.
    pub(crate) fn take(&mut self) -> Vec<Collected> {
        std::mem::take(&mut self.frames).into_iter().next().map(|frame| frame.logs).unwrap_or_default()
    }

    fn collect(&mut self, log: Log) -> Option<usize> {
        let frame = self.frames.last_mut()?;
        frame.logs.push(Collected { log, index: self.count });
        self.count += 1;
        Some(frame.logs.len() - 1)
    }

    fn transfer(&mut self, from: Address, to: Address, value: U256) -> Option<usize> {
        if !self.transfers || value.is_zero() {
            return None;
        }
        let topics = vec![TRANSFER, from.into_word(), to.into_word()];
        let data = Bytes::from(value.to_be_bytes::<32>().to_vec());
        self.collect(Log::new_unchecked(NATIVE_TOKEN, topics, data))
    }

    /// A frame ended: its logs join its parent's if it succeeded; the
    /// outermost frame's are dropped if it failed.
    fn end(&mut self, succeeded: bool) {
        if self.frames.len() <= 1 {
            if !succeeded && let Some(frame) = self.frames.first_mut() {
                frame.logs.clear();
            }
            return;
        }
        let frame = self.frames.pop().unwrap_or_default();
        if succeeded && let Some(parent) = self.frames.last_mut() {
            parent.logs.extend(frame.logs);
        }
    }
}

impl<CTX: ContextTr> Inspector<CTX, EthInterpreter> for CallLogs<'_> {
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut CTX) {
        self.watch.step(interp, context);
    }

    fn log(&mut self, _context: &mut CTX, log: Log) {
        self.collect(log);
    }

    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        self.frames.push(Frame::default());
        if matches!(inputs.scheme, CallScheme::Call | CallScheme::StaticCall) {
            self.transfer(inputs.caller, inputs.target_address, inputs.call_value());
        }
        None
    }

    fn call_end(&mut self, _context: &mut CTX, _inputs: &CallInputs, outcome: &mut CallOutcome) {
        self.end(outcome.result.is_ok());
    }

    fn create(&mut self, _context: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        self.frames.push(Frame::default());
        let created = self.transfer(inputs.caller(), Address::ZERO, inputs.value());
        if let Some(frame) = self.frames.last_mut() {
            frame.created = created;
        }
        None
    }

    fn create_end(&mut self, _context: &mut CTX, _inputs: &CreateInputs, outcome: &mut CreateOutcome) {
        if let (Some(frame), Some(address)) = (self.frames.last_mut(), outcome.address)
            && let Some(at) = frame.created
        {
            let log = &mut frame.logs[at].log;
            let mut topics = log.topics().to_vec();
            topics[2] = address.into_word();
            log.data = alloy_primitives::LogData::new_unchecked(topics, log.data.data.clone());
        }
        self.end(outcome.result.is_ok());
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        self.transfer(contract, target, value);
    }
}
