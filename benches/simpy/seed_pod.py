"""The seed chapter's Pod in SimPy, written as a SimPy user would write it.

One process per container, waiting on events ("init done", "sidecar
started", "deletion requested", "apps exited") and on timeouts for boots,
drains and CrashLoopBackOff. Times are integer milliseconds, like podsim's.

What it models (the seed Pod, the kubelet rules podsim follows for it):
- `config-fetch`, an init container, runs `init_boot` ms, then initialization
  goes on (R4);
- `proxy` is a native sidecar (an initContainers entry with restartPolicy:
  Always, R5: the app waits until it is started) or an app side by side with
  `web` (both start when initialization is over, R6);
- the first `proxy_fails` attempts of the proxy exit 1 at the end of their boot and
  restart after the CrashLoopBackOff delay: `initial`, doubling, capped at
  `cap`, no free first restart (the seed's curve, R14, R15);
- the Pod is Ready when web and the proxy are started; it is deleted
  `stop_after_ready` ms later; apps get SIGTERM at once and drain; a sidecar
  gets SIGTERM once every app has exited (R34, R36);
- exposure: web alive (started, until it exits) while the proxy is not
  alive (started, until it exits), split at the deletion request.

Its domain is the seed's: deletion after Ready, no preStop hook, drains well
inside the 30 s grace period (so no SIGKILL), one proxy and one app. The
anchor script checks that it agrees with podsim run by run on a grid inside
that domain.
"""

import simpy


class Pod:
    """One run of the seed Pod; `metrics()` once the environment has run."""

    def __init__(self, env, p):
        self.env = env
        self.p = p
        self.init_done = env.event()
        self.proxy_started = env.event()
        self.web_started = env.event()
        self.deleted = env.event()
        self.apps_exited = env.event()
        self.web_alive = False
        self.proxy_alive = False
        self.exposed_since = None
        self.exposed = [0, 0]  # before, after the deletion request
        self.deleted_at = None
        self.last_exit = None
        self.ready_at = None
        self.restarts = 0
        env.process(self.config_fetch())
        env.process(self.proxy())
        env.process(self.web())
        env.process(self.readiness())

    def config_fetch(self):
        yield self.env.timeout(self.p["init_boot"])
        self.init_done.succeed()

    def proxy(self):
        p = self.p
        yield self.init_done
        attempt = 0
        while attempt < p["proxy_fails"]:
            yield self.env.timeout(p["proxy_boot"])
            self.restarts += 1
            delay = min(p["backoff_initial"] * 2**attempt, p["backoff_cap"])
            attempt += 1
            yield self.env.timeout(delay)
        yield self.env.timeout(p["proxy_boot"])
        self.set_alive(proxy=True)
        self.proxy_started.succeed()
        # A sidecar is stopped after the apps; an app at the deletion.
        yield self.apps_exited if p["sidecar"] else self.deleted
        yield self.env.timeout(p["proxy_drain"])
        self.set_alive(proxy=False)
        self.exited()

    def web(self):
        p = self.p
        yield self.init_done
        if p["sidecar"]:
            yield self.proxy_started
        yield self.env.timeout(p["web_boot"])
        self.set_alive(web=True)
        self.web_started.succeed()
        yield self.deleted
        yield self.env.timeout(p["web_drain"])
        self.set_alive(web=False)
        self.exited()
        self.apps_exited.succeed()

    def readiness(self):
        yield self.web_started & self.proxy_started
        self.ready_at = self.env.now
        yield self.env.timeout(self.p["stop_after_ready"])
        self.close_exposure()
        self.deleted_at = self.env.now
        self.deleted.succeed()
        self.open_exposure()

    def set_alive(self, web=None, proxy=None):
        self.close_exposure()
        if web is not None:
            self.web_alive = web
        if proxy is not None:
            self.proxy_alive = proxy
        self.open_exposure()

    def open_exposure(self):
        if self.web_alive and not self.proxy_alive:
            self.exposed_since = self.env.now

    def close_exposure(self):
        if self.exposed_since is not None:
            after = self.deleted_at is not None
            self.exposed[after] += self.env.now - self.exposed_since
            self.exposed_since = None

    def exited(self):
        self.last_exit = self.env.now

    def metrics(self):
        return (
            self.ready_at,
            self.exposed[0],
            self.exposed[1],
            self.last_exit - self.deleted_at,
            self.restarts,
        )


def simulate(p):
    """The metrics of one run: ready_ms, exposed_startup_ms,
    exposed_shutdown_ms, termination_ms, restarts."""
    env = simpy.Environment()
    pod = Pod(env, p)
    env.run()
    return pod.metrics()
