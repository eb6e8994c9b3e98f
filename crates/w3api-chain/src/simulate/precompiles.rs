//! Precompiles as geth's simulator has them in one block: moved or taken
//! away by the state overrides, while the addresses an access starts warm
//! at stay the fork's own (geth warms its fork's precompile list, not the
//! moved one), so gas matches geth's.

use alloy_evm::precompiles::PrecompilesMap;
use alloy_primitives::Address;
use alloy_primitives::map::AddressSet;
use revm::handler::PrecompileProvider;
use revm::interpreter::{CallInputs, InterpreterResult};

use super::SimulateError;
use crate::AccountOverride;

/// A block's precompiles after its overrides, warm where the fork's are.
pub(crate) struct Moved {
    precompiles: PrecompilesMap,
    warm: AddressSet,
}

impl Moved {
    /// The fork's `precompiles` with `state`'s moves made, as geth applies
    /// them: in address order, a precompile moved where asked, and any
    /// precompile address with an override taken away (its assumed code
    /// runs instead).
    pub(crate) fn new(
        mut precompiles: PrecompilesMap,
        state: &[(Address, AccountOverride, Option<Address>)],
    ) -> Result<Moved, SimulateError> {
        let warm = precompiles.addresses().copied().collect();
        let mut moved_to = AddressSet::default();
        for (address, _, move_to) in state {
            if moved_to.contains(address) {
                return Err(refused(format!("account {} has already been overridden by a precompile", hex(address))));
            }
            let is_precompile = precompiles.get(address).is_some();
            if let Some(to) = move_to {
                if !is_precompile {
                    return Err(refused(format!("account {} is not a precompile", hex(address))));
                }
                if state.iter().any(|(overridden, _, _)| overridden == to) {
                    return Err(refused(format!("account {} is already overridden", hex(to))));
                }
                let mut found = None;
                precompiles.apply_precompile(address, |precompile| {
                    found = precompile;
                    None
                });
                precompiles.apply_precompile(to, |_| found);
                moved_to.insert(*to);
            } else if is_precompile {
                precompiles.apply_precompile(address, |_| None);
            }
        }
        Ok(Moved { precompiles, warm })
    }
}

fn refused(message: String) -> SimulateError {
    SimulateError::Override(message)
}

fn hex(address: &Address) -> String {
    address.to_checksum(None)
}

impl<CTX> PrecompileProvider<CTX> for Moved
where
    CTX: revm::context_interface::ContextTr,
    PrecompilesMap: PrecompileProvider<CTX, Output = InterpreterResult>,
{
    type Output = InterpreterResult;

    fn set_spec(&mut self, spec: <CTX::Cfg as revm::context_interface::Cfg>::Spec) -> bool {
        self.precompiles.set_spec(spec)
    }

    fn run(&mut self, context: &mut CTX, inputs: &CallInputs) -> Result<Option<InterpreterResult>, String> {
        self.precompiles.run(context, inputs)
    }

    fn warm_addresses(&self) -> &AddressSet {
        &self.warm
    }

    fn contains(&self, address: &Address) -> bool {
        self.precompiles.contains(address)
    }
}
