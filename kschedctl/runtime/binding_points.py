"""Reserve, Permit (and the pods waiting at it), PreBindPreFlight, PreBind, Bind and PostBind:
framework.go's RunReservePlugins*, RunPermitPlugins, the waiting pods map and the binding cycle's
runners.
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import MAX_PERMIT_TIMEOUT_SECONDS, SKIP, Code, Status
from kschedctl.framework.waiting_pods import WaitingPod
from kschedctl.runtime.calls import PluginCalls
from kschedctl.runtime.guard import as_status, permit_result


class BindingPoints(PluginCalls):
    """Reserve, Permit, waiting pods and the binding cycle's points of one profile."""

    waiting_pods: dict[str, WaitingPod]

    # --- Reserve / Permit ------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Any, node_name: str) -> Status:
        for pl, name in self._named("reserve"):
            out = self._call(name, "Reserve", pl, "reserve", state, pod, node_name)
            if out is None:
                continue  # Success, the common answer: no Status made to say so
            st = as_status(name, "Reserve", out)
            if not st.is_success():
                st.plugin = name
                if st.is_rejected():
                    return st
                return Status(Code.Error, f'running Reserve plugin "{name}": {st.message()}', plugin=name, err=st.err)
        return Status()

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        """Every Unreserve runs, in reverse order; their failures are only logged."""
        for pl, name in reversed(self._named("reserve")):
            if self._opt(pl, "unreserve") is not None:
                self._call(name, "Unreserve", pl, "unreserve", state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        waits: dict[str, float] = {}
        messages: list[str] = []
        for pl, name in self._named("permit"):
            st, timeout = permit_result(name, self._call(name, "Permit", pl, "permit", state, pod, node_name))
            if st.is_success():
                continue
            st.plugin = name
            if st.is_rejected():
                return st
            if st.is_wait():
                waits[name] = min(timeout, MAX_PERMIT_TIMEOUT_SECONDS)
                messages.append(st.message())
                continue
            return Status(Code.Error, f'running Permit plugin "{name}": {st.message()}', plugin=name, err=st.err)
        if waits:
            now = self.services.clock.now()
            self.waiting_pods[pod.uid] = WaitingPod(pod, node_name, {n: now + t for n, t in waits.items()}, waits, messages=messages)
            return Status(Code.Wait, f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"')
        return Status()

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting_pods.get(uid)

    def iterate_over_waiting_pods(self) -> list[WaitingPod]:
        return list(self.waiting_pods.values())

    def reject_waiting_pod(self, uid: str) -> bool:
        wp = self.waiting_pods.get(uid)
        if wp is None:
            return False
        wp.reject("", "removed")
        return True

    # --- binding cycle ---------------------------------------------------------------------
    def run_pre_bind_pre_flights(self, state: CycleState, pod: Any, node_name: str) -> Status:
        """Success if any plugin has work, Skip if none has (skipped ones' PreBind won't run)."""
        any_success = False
        for pl, name in self._named("preBind"):
            if self._opt(pl, "pre_bind_pre_flight") is None:
                any_success = True
                continue
            out = self._call(name, "PreBindPreFlight", pl, "pre_bind_pre_flight", state, pod, node_name)
            if out is None:
                any_success = True
                continue
            st = as_status(name, "PreBindPreFlight", out)
            if st.is_skip():
                state.skip_pre_bind_plugins.add(name)
            elif st.is_success():
                any_success = True
            else:
                return Status(Code.Error, f'running PreBindPreFlight "{name}": {st.message()}', plugin=name)
        return Status() if any_success else Status(SKIP)

    def run_pre_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        for pl, name in self._named("preBind"):
            if name in state.skip_pre_bind_plugins:
                continue
            out = self._call(name, "PreBind", pl, "pre_bind", state, pod, node_name)
            if out is None:
                continue
            st = as_status(name, "PreBind", out)
            if not st.is_success():
                st.plugin = name
                if st.is_rejected():
                    return st
                return Status(Code.Error, f'running PreBind plugin "{name}": {st.message()}', plugin=name, err=st.err)
        return Status()

    def run_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> Status:
        if not self.points["bind"]:
            return Status(SKIP)
        st = Status(SKIP)
        for pl, name in self._named("bind"):
            st = as_status(name, "Bind", self._call(name, "Bind", pl, "bind", state, pod, node_name))
            if st.is_skip():
                continue
            if not st.is_success():
                st.plugin = name
                if st.is_rejected():
                    return st
                return Status(Code.Error, f'running Bind plugin "{name}": {st.message()}', plugin=name, err=st.err)
            return st
        return st

    def run_post_bind_plugins(self, state: CycleState, pod: Any, node_name: str) -> None:
        for pl, name in self._named("postBind"):
            self._call(name, "PostBind", pl, "post_bind", state, pod, node_name)


__all__ = ["BindingPoints"]
