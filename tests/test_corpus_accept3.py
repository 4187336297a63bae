"""A fifth corpus of realistic NumPy programs: those written by two acceptance campaigns of session 20.

Same pattern as tests/test_corpus_accept2.py: each program is written as users write NumPy, with an
input maker ``make(n, rng)``, and runs differentially against NumPy at two sizes. The domains:
reinforcement learning (returns, GAE, tabular Q updates, replay rings), control and robotics
(Kalman filters and PID loops by hand, cart-pole, arms, quaternions), epidemiology and population
models, sports ratings, ranking metrics, queueing and inventory, tabular wrangling (group-by,
pivots, rolling windows, fills), compression and encoding (deltas, zigzag, bit packing,
checksums), finite elements and meshes, camera geometry, and medical and astronomy imaging.
Loops are short (20 steps at most), so no program takes much over a second to compile.
Several pin a fix of a bug a campaign found (session 20); their docstrings name it.

Every test here is marked slow (one XLA compile per program and size): run it with
``pytest -m slow tests/test_corpus_accept3.py``.
"""

from typing import NamedTuple

import numpy as np
import pytest
from marks import registrar
from numpy.lib.stride_tricks import sliding_window_view

from elena_jax.testing import check_against_numpy

pytestmark = pytest.mark.slow

SIZES = (3, 5)
CORPUS = []
case = registrar(CORPUS, SIZES)


# === reinforcement learning ===============================================================
def _rewards_dones(n, rng):
    dones = (rng.random(4 * n) < 0.2).astype(np.float32)
    return rng.normal(size=4 * n).astype(np.float32), dones


@case(_rewards_dones)
def discounted_returns_backward(rewards, dones, gamma=0.99):
    """Discounted returns by a backward loop, float32 rewards and a float32 running total."""
    ret = np.zeros_like(rewards)
    running = np.float32(0.0)
    for t in reversed(range(rewards.shape[0])):
        running = rewards[t] + gamma * running * (1.0 - dones[t])
        ret[t] = running
    return ret


def _gae_inputs(n, rng):
    T, N = 2 * n + 2, 3
    return rng.normal(size=(T, N)), rng.normal(size=(T + 1, N)), rng.random((T, N)) < 0.1


@case(_gae_inputs)
def gae_batched_inplace(rewards, values, dones, gamma=0.99, lam=0.95):
    """Generalised advantage estimation over a batch of envs, normalised in place through a view."""
    T, N = rewards.shape
    adv = np.zeros((T + 1, N), dtype=rewards.dtype)
    nonterm = 1.0 - dones.astype(rewards.dtype)
    for t in range(T - 1, -1, -1):
        delta = rewards[t] + gamma * values[t + 1] * nonterm[t] - values[t]
        adv[t] = delta + gamma * lam * nonterm[t] * adv[t + 1]
    returns = adv[:-1] + values[:-1]
    a = adv[:-1]
    a -= a.mean()
    a /= a.std() + 1e-8
    return a, returns


def _mdp(n, rng):
    S, A = n + 1, 3
    P = rng.random((A, S, S))
    P /= P.sum(axis=2, keepdims=True)
    return P, rng.normal(size=(S, A))


@case(_mdp)
def value_iteration_matmul_out(P, R, gamma=0.9, iters=10):
    """Value iteration: Q filled with [...] = and the state values reduced with np.max(out=)."""
    A, S, _ = P.shape
    V = np.zeros(S)
    Q = np.empty((S, A))
    for _ in range(iters):
        Q[...] = R + gamma * (P @ V).T
        np.max(Q, axis=1, out=V)
    return V, np.argmax(Q, axis=1), Q


def _transitions(n, rng):
    nS, nA, M = n + 2, 3, 2 * n + 1
    return (rng.normal(size=(nS, nA)), rng.integers(0, nS, M), rng.integers(0, nA, M), rng.normal(size=M),
            rng.integers(0, nS, M), (rng.random(M) < 0.2).astype(np.int64))


@case(_transitions)
def q_learning_table_updates(Q, s, a, r, s2, done, alpha=0.1, gamma=0.9):
    """Tabular Q-learning, one transition at a time, traced state and action indices."""
    for i in range(s.shape[0]):
        target = r[i] + gamma * Q[s2[i]].max() * (1 - done[i])
        td = target - Q[s[i], a[i]]
        Q[s[i], a[i]] += alpha * td
    return Q.argmax(axis=1)


def _eps_greedy(n, rng):
    return (rng.normal(size=(2 * n, 4)).astype(np.float32), rng.random(2 * n).astype(np.float32),
            rng.integers(0, 4, 2 * n).astype(np.int32))


@case(_eps_greedy)
def epsilon_greedy_probs(Q, u, rand_actions, eps=0.1):
    """Epsilon-greedy action choice and its log-probabilities, float32, fancy += on the greedy entries."""
    N, A = Q.shape
    greedy = Q.argmax(axis=1)
    actions = np.where(u < eps, rand_actions, greedy)
    probs = np.full((N, A), eps / A, dtype=Q.dtype)
    probs[np.arange(N), greedy] += 1 - eps
    logp = np.log(probs[np.arange(N), actions])
    return actions, probs, logp


def _replay(n, rng):
    cap = 2 * n
    return (rng.normal(size=(cap, 3)).astype(np.float32), rng.random(cap) + 0.1, np.array(cap - 2),
            rng.normal(size=(n, 3)).astype(np.float32), rng.integers(0, cap, n + 2))


@case(_replay)
def prioritized_replay_ring(obs_buf, prio, ptr, batch_obs, idx_sample, alpha=0.6, beta=0.4):
    """Prioritised replay: a ring write at a traced pointer, new max priorities, importance weights."""
    cap = obs_buf.shape[0]
    B = batch_obs.shape[0]
    idx = (ptr + np.arange(B)) % cap
    obs_buf[idx] = batch_obs
    prio[idx] = prio.max()
    ptr[...] = (ptr + B) % cap
    p = prio ** alpha
    p /= p.sum()
    w = (cap * p[idx_sample]) ** (-beta)
    w /= w.max()
    return obs_buf[idx_sample], w


@case(lambda n, rng: (rng.normal(size=(3 * n, 4)) + np.array([0, 0.5, 0.2, 0.1]),))
def ucb_bandit_loop(R, c=2.0):
    """UCB1 bandit: traced argmax picks the arm whose count and sum are bumped in place."""
    T, K = R.shape
    counts = np.ones(K, dtype=np.int64)
    sums = R[0].copy()
    picks = np.zeros(T, dtype=np.int64)
    for t in range(1, T):
        ucb = sums / counts + c * np.sqrt(np.log(t + 1) / counts)
        a = np.argmax(ucb)
        counts[a] += 1
        sums[a] += R[t, a]
        picks[t] = a
    return picks, counts, sums


def _gridworld(n, rng):
    R = -np.ones((n + 1, n + 2))
    R[-1, -1] = 10.0
    wall = np.zeros((n + 1, n + 2), dtype=bool)
    wall[1:n, 2] = True
    return R + rng.normal(0, 0.01, R.shape), wall


@case(_gridworld)
def gridworld_vi_shifts(Rg, wall, gamma=0.9, iters=8):
    """Gridworld value iteration with neighbours built by vstack/hstack shifts, walls zeroed by mask."""
    V = np.zeros_like(Rg)
    for _ in range(iters):
        up = np.vstack([V[:1], V[:-1]])
        down = np.vstack([V[1:], V[-1:]])
        left = np.hstack([V[:, :1], V[:, :-1]])
        right = np.hstack([V[:, 1:], V[:, -1:]])
        best = np.maximum(np.maximum(up, down), np.maximum(left, right))
        V[...] = Rg + gamma * best
        V[wall] = 0.0
    return V


@case(lambda n, rng: (rng.normal(size=(48, 4)) * 0.01, rng.integers(0, 4, n + 2), rng.random(n + 2)))
def cliff_walk_episode_given_actions(Q, actions, rand_u, alpha=0.5, gamma=1.0, eps=0.1):
    """Cliff walking: the agent's position is a traced int array; Q rows picked by traced states."""
    H, W = 4, 12
    dr = np.array([-1, 1, 0, 0])
    dc = np.array([0, 0, -1, 1])
    pos = np.array([3, 0])
    total = 0.0
    for t in range(actions.shape[0]):
        s = pos[0] * W + pos[1]
        greedy = Q[s].argmax()
        a = np.where(rand_u[t] < eps, actions[t], greedy)
        nr = np.clip(pos[0] + dr[a], 0, H - 1)
        nc = np.clip(pos[1] + dc[a], 0, W - 1)
        cliff = (nr == 3) & (nc > 0) & (nc < W - 1)
        rew = np.where(cliff, -100.0, -1.0)
        nr = np.where(cliff, 3, nr)
        nc = np.where(cliff, 0, nc)
        s2 = nr * W + nc
        Q[s, a] += alpha * (rew + gamma * Q[s2].max() - Q[s, a])
        pos[0] = nr
        pos[1] = nc
        total = total + rew
    return total, pos


@case(lambda n, rng: (rng.normal(size=30), rng.normal(size=3), 2.0, 0.5, n + 5))
def replay_flat_storage_reshape_view(storage, obs, act, rew, ptr):
    """A replay buffer stored flat and written through a reshape view, columns centred in place."""
    cap = 6
    buf = storage.reshape(cap, -1)
    i = ptr % cap
    buf[i, :3] = obs
    buf[i, 3] = act
    buf[i, 4] = rew
    col_obs = buf[:, :3]
    col_obs -= col_obs.mean(axis=0)
    return buf[:, 4].sum(), storage.shape


@case(lambda n, rng: (rng.integers(0, 256, (4, n + 3, n + 2), dtype=np.uint8),
                      rng.integers(0, 256, (n + 3, n + 2), dtype=np.uint8)))
def atari_frame_stack_push_uint8(frames, obs):
    """Frame stack shifted in place (overlapping slices) and the new uint8 frame pushed."""
    frames[:-1] = frames[1:]
    frames[-1] = obs
    x = frames.astype(np.float32) / 255.0
    diff = frames[1:].astype(np.int16) - frames[:-1].astype(np.int16)
    motion = np.abs(diff).sum(axis=(1, 2))
    return x.transpose(1, 2, 0), motion


@case(lambda n, rng: (rng.normal(size=(n + 2, 3)), rng.integers(0, n + 2, n), rng.integers(0, 3, n),
                      rng.normal(size=n)))
def q_table_flat_index_update(Q, s, a, target, alpha=0.3):
    """Q updated through its flat view at s * nA + a (duplicates: NumPy's last write wins)."""
    nA = Q.shape[1]
    flat = Q.reshape(-1)
    idx = s * nA + a
    flat[idx] += alpha * (target - flat[idx])
    return Q.max(axis=1), flat.argmax()


@case(lambda n, rng: (rng.normal(size=(2 * n + 1, 3)).astype(np.float32), rng.random(2 * n + 1) < 0.4,
                      np.array([0.0, 1.0, 0.0], dtype=np.float32)))
def bool_dones_mask_reset_rows(obs, dones, init):
    """Finished envs reset by a traced boolean row mask, the others' first column bumped."""
    obs[dones] = init
    obs[~dones, 0] += 1.0
    return obs, dones.sum()


@case(lambda n, rng: (np.zeros((3, 2)), rng.integers(0, 3, 2 * n), rng.integers(0, 2, 2 * n), rng.normal(size=2 * n)))
def q_update_vectorized_duplicates(Q, s, a, td, alpha=0.5):
    """Vectorised Q[s, a] += with duplicate pairs: NumPy's buffered += keeps only the last."""
    Q[s, a] += alpha * td
    return Q


@case(lambda n, rng: (rng.normal(size=(n + 1, 3)), np.array(n % 3), np.array(1), 0.5))
def q_row_view_traced_index(Q, s, a, r):
    """A row selected by a traced 0-d index is a view: writes through it reach Q."""
    row = Q[s]
    row *= 0.9
    row[a] += r
    return Q, row.max()


@case(lambda n, rng: (np.arange(3.0 * (n + 1)).reshape(n + 1, 3), np.array(1), np.array(1 if n == 3 else 2)))
def two_rows_maybe_alias(Q, s1, s2):
    """Two row views by traced indices that alias at the first size and not at the second."""
    r1 = Q[s1]
    r2 = Q[s2]
    r1 += 1.0
    r2 *= 2.0
    return Q, r1.copy(), r2.copy()


def _replay_dict(n, rng):
    buf = {"obs": np.zeros((2 * n, 3), dtype=np.float32), "act": np.zeros(2 * n, dtype=np.int64),
           "rew": np.zeros(2 * n), "done": np.zeros(2 * n, dtype=bool)}
    return (buf, rng.normal(size=(n + 1, 3)).astype(np.float32), rng.integers(0, 4, n + 1), rng.normal(size=n + 1),
            rng.random(n + 1) < 0.3, np.array(2 * n - 2))


@case(_replay_dict)
def replay_dict_add(buf, obs, act, rew, done, ptr):
    """A replay buffer as a dict of arrays, each written at a traced ring index."""
    cap = buf["obs"].shape[0]
    B = obs.shape[0]
    idx = (ptr + np.arange(B)) % cap
    buf["obs"][idx] = obs
    buf["act"][idx] = act
    buf["rew"][idx] = rew
    buf["done"][idx] = done
    return {"ptr": (ptr + B) % cap, "mean_rew": buf["rew"].mean()}


@case(lambda n, rng: (rng.normal(size=8 * n).astype(np.float32), (0, n, 2 * n + 1, 2 * n + 2, 6 * n)))
def episode_returns_reduceat_static(rew, starts):
    """Per-episode returns and best rewards by reduceat over static episode starts."""
    starts = np.array(starts)
    ep = np.add.reduceat(rew, starts)
    length = np.diff(np.append(starts, rew.shape[0]))
    best = np.maximum.reduceat(rew, starts)
    return ep, ep / length, best


@case(lambda n, rng: (rng.random(3 * n) + 0.01, rng.random(4 * n)))
def sample_by_priority(prio, u):
    """Categorical sampling from priorities with given uniforms: cumsum and searchsorted."""
    c = np.cumsum(prio)
    idx = np.searchsorted(c, u * c[-1], side="right")
    np.minimum(idx, prio.shape[0] - 1, out=idx)
    probs = prio / c[-1]
    return idx, probs[idx]


def _copyto_reset(n, rng):
    return rng.normal(size=(n + 1, 3)), rng.random(n + 1) < 0.5, rng.normal(size=2)


@case(_copyto_reset)
def env_reset_copyto_list(obs, done, y):
    """Env state reset with np.copyto from lists; pins session 20's np.copyto(dst, [list]) fix."""
    np.copyto(obs[0], [1.0, 2.0, 3.0])
    np.copyto(obs[1], (y[0], 0.0, y[1]))
    np.copyto(obs, [0.0, 0.5, -0.5], where=done[:, None])
    return obs


# === control and robotics =================================================================
@case(lambda n, rng: (np.cumsum(rng.normal(size=n + 3)),))
def kalman_cv_scalar_by_hand(z, dt=0.1, q=0.01, r=0.5):
    """Constant-velocity Kalman filter with the 2x2 covariance predicted entry by entry."""
    T = z.shape[0]
    x = np.zeros(2)
    P = np.eye(2) * 10.0
    xs = np.empty((T, 2))
    Ps = np.empty((T, 2, 2))
    for t in range(T):
        x[0] = x[0] + dt * x[1]
        p00 = P[0, 0] + dt * (P[1, 0] + P[0, 1]) + dt * dt * P[1, 1] + q
        p01 = P[0, 1] + dt * P[1, 1]
        p10 = P[1, 0] + dt * P[1, 1]
        p11 = P[1, 1] + q
        P[0, 0] = p00
        P[0, 1] = p01
        P[1, 0] = p10
        P[1, 1] = p11
        S = P[0, 0] + r
        K = P[:, 0] / S
        y = z[t] - x[0]
        x += K * y
        P -= np.outer(K, P[0, :])
        xs[t] = x
        Ps[t] = P
    return xs, Ps


def _setpoint(n, rng):
    sp = np.ones(3 * n)
    sp[2 * n:] = -0.5
    return (sp + rng.normal(0, 0.01, 3 * n),)


@case(_setpoint)
def pid_first_order_plant(setpoint, kp=2.0, ki=0.5, kd=0.1, dt=0.05, umax=3.0):
    """PID loop with anti-windup clip on a first-order plant, written into preallocated arrays."""
    T = setpoint.shape[0]
    y = np.zeros(T + 1)
    u = np.zeros(T)
    integ = 0.0
    prev_err = 0.0
    for t in range(T):
        err = setpoint[t] - y[t]
        integ = integ + err * dt
        integ = np.clip(integ, -2.0, 2.0)
        deriv = (err - prev_err) / dt
        u[t] = kp * err + ki * integ + kd * deriv
        prev_err = err
        y[t + 1] = y[t] + dt * (-y[t] + np.clip(u[t], -umax, umax))
    np.clip(u, -umax, umax, out=u)
    return y, u


@case(lambda n, rng: (rng.uniform(-np.pi, np.pi, (2 * n + 1, 3)), np.array([1.0, 0.7, 0.4])))
def planar_arm_fk_batch(q, L):
    """Forward kinematics of planar arms: joint angles and link ends by cumsum into out= views."""
    N, J = q.shape
    ang = np.empty_like(q)
    np.cumsum(q, axis=1, out=ang)
    pts = np.zeros((N, J + 1, 2))
    c = np.cos(ang) * L
    s = np.sin(ang) * L
    np.cumsum(c, axis=1, out=pts[:, 1:, 0])
    np.cumsum(s, axis=1, out=pts[:, 1:, 1])
    reach = np.hypot(pts[:, -1, 0], pts[:, -1, 1])
    return pts, reach, ang[:, -1] % (2 * np.pi)


@case(lambda n, rng: (rng.normal(size=(2 * n + 3, 4)).astype(np.float32),
                      rng.normal(size=(2 * n + 3, 4)).astype(np.float32)))
def quat_mul_normalize_f32(p, q):
    """Quaternion products into columns, normalised, sign-canonicalised by a mask, conjugated."""
    out = np.empty_like(p)
    pw, px, py, pz = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    qw, qx, qy, qz = q.T
    out[:, 0] = pw * qw - px * qx - py * qy - pz * qz
    out[:, 1] = pw * qx + px * qw + py * qz - pz * qy
    out[:, 2] = pw * qy - px * qz + py * qw + pz * qx
    out[:, 3] = pw * qz + px * qy - py * qx + pz * qw
    norm = np.sqrt((out * out).sum(axis=1))
    out /= norm[:, None]
    flip = out[:, 0] < 0
    out[flip] *= -1
    conj = out.copy()
    conj[:, 1:] *= -1
    return out, conj


@case(lambda n, rng: (np.array([0.0, 0.1, 0.05, -0.1]) + rng.normal(0, 0.01, 4), rng.choice([-10.0, 10.0], n + 3)))
def cartpole_euler(state, forces, dt=0.02):
    """Cart-pole Euler steps: the state unpacked, updated entry by entry in place, copied to history."""
    g, mc, mp, half = 9.8, 1.0, 0.1, 0.5
    T = forces.shape[0]
    hist = np.empty((T + 1, 4))
    hist[0] = state
    for t in range(T):
        x, xd, th, thd = state
        ct, st = np.cos(th), np.sin(th)
        temp = (forces[t] + mp * half * thd * thd * st) / (mc + mp)
        thacc = (g * st - ct * temp) / (half * (4.0 / 3.0 - mp * ct * ct / (mc + mp)))
        xacc = temp - mp * half * thacc * ct / (mc + mp)
        state[0] += dt * xd
        state[1] += dt * xacc
        state[2] += dt * thd
        state[3] += dt * thacc
        hist[t + 1] = state
    done = (np.abs(hist[:, 0]) > 2.4) | (np.abs(hist[:, 2]) > 0.2095)
    return hist, done


@case(lambda n, rng: (rng.integers(-20, 200, (2 * n, 2)).astype(np.int32),))
def diff_drive_odometry_int_ticks(ticks, r=0.03, base=0.2, tpr=512):
    """Differential-drive odometry from int32 encoder ticks, heading wrapped with arctan2."""
    T = ticks.shape[0]
    dist = ticks.astype(np.float64) * (2 * np.pi * r / tpr)
    pose = np.zeros(3)
    traj = np.zeros((T, 3))
    for t in range(T):
        dl, dr = dist[t]
        dc = (dl + dr) / 2
        dth = (dr - dl) / base
        pose[0] += dc * np.cos(pose[2] + dth / 2)
        pose[1] += dc * np.sin(pose[2] + dth / 2)
        pose[2] = np.arctan2(np.sin(pose[2] + dth), np.cos(pose[2] + dth))
        traj[t] = pose
    return traj


@case(lambda n, rng: (np.array([1.0, 0.0]) + rng.normal(0, 0.1, 2), np.sin(np.arange(n + 2) * 0.3)))
def msd_rk4_stage_views(y0, F, m=1.0, c=0.3, k=4.0, h=0.05):
    """Mass-spring-damper RK4 with the four stages stored as rows of one array."""
    T = F.shape[0]
    y = y0.copy()
    ks = np.zeros((4, 2))
    traj = np.empty((T, 2))
    for t in range(T):
        for i, (a, w) in enumerate([(0.0, 0), (0.5, 0), (0.5, 1), (1.0, 2)]):
            yy = y + a * h * ks[w] if i else y
            ks[i, 0] = yy[1]
            ks[i, 1] = (F[t] - c * yy[1] - k * yy[0]) / m
        y += h / 6 * (ks[0] + 2 * ks[1] + 2 * ks[2] + ks[3])
        traj[t] = y
    return traj


def _occupancy(n, rng):
    m = n + 5
    return (np.zeros((m, m), dtype=np.float32), rng.integers(0, m, 3 * n), rng.integers(0, m, 3 * n),
            rng.integers(0, m, 6 * n), rng.integers(0, m, 6 * n))


@case(_occupancy)
def occupancy_logodds_add_at(grid, hits_r, hits_c, miss_r, miss_c, l_occ=0.85, l_free=-0.4):
    """Occupancy grid: log-odds hits and misses scattered with np.add.at, clipped in place."""
    np.add.at(grid, (hits_r, hits_c), l_occ)
    np.add.at(grid, (miss_r, miss_c), l_free)
    np.clip(grid, -5.0, 5.0, out=grid)
    prob = 1.0 - 1.0 / (1.0 + np.exp(grid))
    return prob, (prob > 0.65).sum()


@case(lambda n, rng: (rng.normal(size=(2 * n + 1, 4)) * 0.2, rng.choice([-10.0, 10.0], 2 * n + 1)))
def batched_cartpole_lanes(s, F, dt=0.02):
    """Batched cart-pole step: the new state written lane by lane, finished envs zeroed by mask."""
    g, mc, mp, half = 9.8, 1.0, 0.1, 0.5
    x, xd, th, thd = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
    ct, st = np.cos(th), np.sin(th)
    temp = (F + mp * half * thd * thd * st) / (mc + mp)
    thacc = (g * st - ct * temp) / (half * (4.0 / 3.0 - mp * ct * ct / (mc + mp)))
    xacc = temp - mp * half * thacc * ct / (mc + mp)
    new = np.empty_like(s)
    new[:, 0] = x + dt * xd
    new[:, 1] = xd + dt * xacc
    new[:, 2] = th + dt * thd
    new[:, 3] = thd + dt * thacc
    done = (np.abs(new[:, 0]) > 2.4) | (np.abs(new[:, 2]) > 0.21)
    new[done] = 0.0
    return new, done


@case(lambda n, rng: (rng.normal(size=(n + 3, 4)), rng.normal(size=(n + 3, 4))))
def quat_mul_inplace_view_components(q, p):
    """Quaternion product in place with components taken as views: later lines see earlier writes."""
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    pw, px, py, pz = p.T
    q[:, 0] = w * pw - x * px - y * py - z * pz
    q[:, 1] = w * px + x * pw + y * pz - z * py
    q[:, 2] = w * py - x * pz + y * pw + z * px
    q[:, 3] = w * pz + x * py - y * px + z * pw
    return q


@case(lambda n, rng: (rng.normal(size=(2 * n + 1, 2)).astype(np.float32), np.float32(0.6), np.float32(0.8)))
def rotate_points_inplace_views_f32(pts, c, s):
    """The classic aliasing slip: a 2-D rotation in place through column views (float32)."""
    x, y = pts[:, 0], pts[:, 1]
    pts[:, 0] = c * x - s * y
    pts[:, 1] = s * x + c * y
    return pts


@case(lambda n, rng: (np.array([0.0, 0.0, 0.1, 0.0]) + rng.normal(0, 0.01, 4), rng.normal(size=2 * n)))
def cartpole_views_not_copies(s, F, dt=0.02):
    """Cart-pole state unpacked as one-element slice views and updated through them."""
    pos, vel = s[0:1], s[1:2]
    th, om = s[2:3], s[3:4]
    for t in range(F.shape[0]):
        pos += dt * vel
        vel += dt * (F[t] - 0.1 * om * om * np.sin(th))
        th += dt * om
        om += dt * (9.8 * np.sin(th) - np.cos(th) * vel)
    return s


class KalmanState(NamedTuple):
    x: np.ndarray
    P: np.ndarray


@case(lambda n, rng: (KalmanState(rng.normal(size=2), np.array([[2.0, 0.5], [0.5, 1.0]]) * n), np.array(1.3)))
def kf_update_namedtuple(kf, z, r=0.5):
    """A Kalman measurement update on a NamedTuple of arrays, written in place."""
    S = kf.P[0, 0] + r
    K = kf.P[:, 0] / S
    y = z - kf.x[0]
    kf.x[:] += K * y
    kf.P[:] -= np.outer(K, kf.P[0])
    return y / np.sqrt(S)


# === epidemiology and population models ===================================================
@case(lambda n, rng: (np.array([990.0, 10.0, 0.0]) * rng.uniform(0.5, 2.0), 2 * n))
def sir_history_prealloc(y0, T, beta=0.3, gamma=0.1, dt=0.5):
    """SIR by Euler steps: compartments unpacked, updated entry by entry, copied into a history."""
    hist = np.empty((T + 1, 3))
    hist[0] = y0
    y = y0.copy()
    N = y.sum()
    for t in range(T):
        sus, inf, _rem = y
        new_inf = beta * sus * inf / N
        rec = gamma * inf
        y[0] -= dt * new_inf
        y[1] += dt * (new_inf - rec)
        y[2] += dt * rec
        hist[t + 1] = y
    return hist, hist[:, 1].argmax(), hist[-1, 2] / N


def _leslie(n, rng):
    k = n + 2
    fec = np.concatenate([[0.0], rng.uniform(0.2, 1.5, k - 1)])
    return fec, rng.uniform(0.5, 0.9, k - 1), rng.integers(10, 100, k).astype(np.int32)


@case(_leslie)
def leslie_projection_power(fec, surv, n0, years=10):
    """Leslie matrix built with a fancy subdiagonal write, projected year by year from int32 counts."""
    n = fec.shape[0]
    L = np.zeros((n, n))
    L[0, :] = fec
    L[np.arange(1, n), np.arange(n - 1)] = surv
    pop = n0.astype(np.float64)
    traj = np.empty((years + 1, n))
    traj[0] = pop
    for t in range(years):
        pop = L @ pop
        traj[t + 1] = pop
    lam = traj[-1].sum() / traj[-2].sum()
    return L, traj, lam, traj[-1] / traj[-1].sum()


def _age_int(n, rng):
    k = n + 4
    return (rng.integers(10, 120, k).astype(np.int64), rng.uniform(0.0, 0.3, k),
            np.concatenate([[0.0, 0.0], rng.uniform(0, 0.5, k - 2)]))


@case(_age_int)
def age_structured_int_shift(pop, mort, fert, years=8):
    """Integer age classes: floor deaths, integer births, cohorts shifted in place."""
    hist = np.zeros((years + 1, pop.shape[0]), dtype=pop.dtype)
    hist[0] = pop
    for y in range(years):
        deaths = np.floor(pop * mort).astype(pop.dtype)
        survivors = pop - deaths
        births = (survivors * fert).sum() // 2
        oldest = survivors[-1]
        pop[1:] = survivors[:-1]
        pop[-1] += oldest
        pop[0] = births
        hist[y + 1] = pop
    return hist


@case(lambda n, rng: (np.array([10.0, 5.0]) + rng.normal(0, 0.1, 2), 2 * n))
def lotka_volterra_rk2(z0, T, a=1.1, b=0.4, c=0.4, d=0.1, h=0.05):
    """Lotka-Volterra by Heun's method, the right-hand side a nested function returning np.array."""
    def rhs(z):
        x, y = z[0], z[1]
        return np.array([a * x - b * x * y, d * x * y - c * y])

    z = z0.copy()
    out = np.empty((T, 2))
    for t in range(T):
        k1 = rhs(z)
        k2 = rhs(z + h * k1)
        z += 0.5 * h * (k1 + k2)
        out[t] = z
    return out


def _chain_binomial(n, rng):
    N = 6 * n
    S0 = np.ones(N, dtype=bool)
    S0[:2] = False
    return S0, ~S0, rng.random((2 * n, N)), rng.random((2 * n, N))


@case(_chain_binomial)
def chain_binomial_sir_uniforms(S0, I0, U_inf, U_rec, beta=0.02, gamma=0.3):
    """Reed-Frost chain binomial on boolean states with &=, |= and counts per step."""
    T, N = U_inf.shape
    sus = S0.copy()
    inf = I0.copy()
    counts = np.zeros((T + 1, 3), dtype=np.int64)
    counts[0] = [sus.sum(), inf.sum(), 0]
    for t in range(T):
        p_inf = 1.0 - (1.0 - beta) ** inf.sum()
        new_inf = sus & (U_inf[t] < p_inf)
        new_rec = inf & (U_rec[t] < gamma)
        sus &= ~new_inf
        inf |= new_inf
        inf &= ~new_rec
        counts[t + 1, 0] = sus.sum()
        counts[t + 1, 1] = inf.sum()
        counts[t + 1, 2] = N - sus.sum() - inf.sum()
    return counts, sus, inf


def _incidence(n, rng):
    t = np.arange(8 * n)
    base = np.round(50 * np.exp(-((t - 4 * n) / 7.0) ** 2)).astype(np.int32)
    return (base + rng.integers(0, 5, 8 * n).astype(np.int32),)


@case(_incidence)
def epi_curve_stats(incidence, w=7):
    """Epidemic curve: cumsum(out=), weekly sums by sliding windows, growth and doubling times."""
    cum = np.empty(incidence.shape[0], dtype=np.int64)
    np.cumsum(incidence, out=cum)
    win = np.lib.stride_tricks.sliding_window_view(incidence, w)
    wsum = win.sum(axis=1).astype(np.float64)
    growth = wsum[w:] / np.maximum(wsum[:-w], 1)
    doubling = np.where(growth > 1, w * np.log(2) / np.log(np.maximum(growth, 1 + 1e-12)), np.inf)
    peak = np.argmax(wsum) + w - 1
    return cum, wsum, growth, doubling, peak


def _sis(n, rng):
    m = 2 * n + 2
    A = rng.random((m, m)) < 0.3
    A = A | A.T
    np.fill_diagonal(A, False)
    inf0 = np.zeros(m, dtype=bool)
    inf0[[0, n]] = True
    return A, inf0, rng.random((n + 2, m)), rng.random((n + 2, m))


@case(_sis)
def sis_network_bool(A, infected, U1, U2, beta=0.3, gamma=0.2):
    """SIS on a contact network: infected neighbours by int32 matmul, the state written with [:]."""
    T = U1.shape[0]
    prevalence = np.zeros(T, dtype=np.float32)
    for t in range(T):
        k = A.astype(np.int32) @ infected.astype(np.int32)
        p = 1.0 - (1.0 - beta) ** k
        recover = infected & (U2[t] < gamma)
        catch = ~infected & (U1[t] < p)
        infected[:] = (infected & ~recover) | catch
        prevalence[t] = infected.mean()
    return prevalence


@case(lambda n, rng: (rng.uniform(0.2, 1.0, n + 1).astype(np.float32), np.array([1.0, 0.95, 0.9], dtype=np.float32)))
def selection_genotype_freq_f32(p0, w, gens=10):
    """Allele frequencies under selection in float32, written with p[:] = each generation."""
    p = p0.copy()
    traj = np.zeros((gens + 1, p.shape[0]), dtype=np.float32)
    traj[0] = p
    for g in range(gens):
        q = 1 - p
        wbar = p * p * w[0] + 2 * p * q * w[1] + q * q * w[2]
        p[:] = (p * p * w[0] + p * q * w[1]) / wbar
        traj[g + 1] = p
    return traj, 2 * traj * (1 - traj)


@case(lambda n, rng: (np.zeros(n + 2), np.where(np.arange(3 * n) < n, 10.0, 0.0) + rng.uniform(0, 1, 3 * n)))
def erlang_delay_chain_inplace(x, inflow, rate=0.4):
    """Erlang-distributed delay as a chain of compartments updated with overlapping slices."""
    T = inflow.shape[0]
    out = np.zeros(T)
    for t in range(T):
        out[t] = rate * x[-1]
        x[1:] += rate * (x[:-1] - x[1:])
        x[0] += inflow[t] - rate * x[0]
    return out, x.sum()


@case(lambda n, rng: (rng.uniform(1.2, 6.0, n + 2), np.array([0.3, 0.5, 0.7, 0.9])))
def herd_immunity_reverse_cummax(R0s, coverage):
    """Herd-immunity thresholds with a reversed maximum.accumulate and first-ok argmax."""
    hit = 1 - 1 / R0s
    needed = np.maximum.accumulate(hit[::-1])[::-1]
    ok = coverage[:, None] >= hit[None, :]
    first_ok = np.argmax(ok, axis=1)
    first_ok[~ok.any(axis=1)] = -1
    return hit, needed, first_ok


def _seir_rows(n, rng):
    st = np.zeros((4, n))
    st[0] = rng.uniform(500, 1000, n)
    st[1] = rng.uniform(0, 5, n)
    st[2] = rng.uniform(1, 5, n)
    return (st,)


@case(_seir_rows)
def seir_rows_slice_update(state, beta=0.5, sigma=0.25, gamma=0.2, dt=0.1, T=8):
    """SEIR over patches: flows subtracted from rows [:3] and added to rows [1:] in place."""
    N = state.sum(axis=0)
    for _ in range(T):
        flows = np.empty((3, state.shape[1]))
        flows[0] = beta * state[0] * state[2] / N
        flows[1] = sigma * state[1]
        flows[2] = gamma * state[2]
        state[:3] -= dt * flows
        state[1:] += dt * flows
    return state.sum(axis=0) - N


@case(lambda n, rng: (rng.uniform(50, 100, 2 * (n + 3)), rng.uniform(0.8, 1.0, n + 3)))
def cohort_aging_reshape_2d(pop_flat, surv, years=5):
    """Cohort aging on a (sex, age) reshape view of a flat array."""
    pop = pop_flat.reshape(2, -1)
    for _ in range(years):
        births = 0.02 * pop[1].sum()
        pop[:, -1] = pop[:, -1] * surv[-1] + pop[:, -2] * surv[-2]
        pop[:, 1:-1] = pop[:, :-2] * surv[:-2]
        pop[0, 0] = births * 0.51
        pop[1, 0] = births * 0.49
    return pop_flat.sum(), pop


@case(lambda n, rng: (rng.uniform(0, 99, 12 * n), rng.uniform(0.5, 1.5, 12 * n)))
def age_pyramid_histogram_add_at(ages, weights):
    """Age pyramid: histogram of range edges, digitize with list bins, weighted group sums by add.at."""
    h, edges = np.histogram(ages, bins=np.arange(0, 101, 10))
    grp = np.digitize(ages, [18, 65])
    wsum = np.zeros(3)
    np.add.at(wsum, grp, weights)
    cnt = np.zeros(3, dtype=np.int64)
    np.add.at(cnt, grp, 1)
    return h, edges, wsum, cnt, (cnt[0] + cnt[2]) / cnt[1]


@case(lambda n, rng: (np.cumsum(rng.integers(0, 20, 3 * n + 3)),))
def new_cases_diff_gradient(cum):
    """Daily new cases by diff(prepend=0) and growth by np.gradient with a spacing."""
    new = np.diff(cum, prepend=0)
    g = np.gradient(cum.astype(np.float64))
    g2 = np.gradient(cum.astype(np.float64), 2.0)
    return new, g, g2


@case(lambda n, rng: (rng.integers(0, 50, 4 * n + 1),))
def weekly_cases_diff_prepend_list(cum):
    """Weekly increments of a cumulative series; pins session 20's lists given to np.diff(prepend=[..])."""
    total = np.cumsum(cum)
    new = np.diff(total, prepend=[0])
    tail = np.diff(total.astype(np.float64), append=[total[-1] + 1.0])
    return new, tail


# === sports ratings =======================================================================
def _pairs(n, rng, m=None):
    P = n + 3
    m = 4 * n if m is None else m
    return np.array([rng.permutation(P)[:2] for _ in range(m)]), P


def _elo_rounds(n, rng):
    pairs, P = _pairs(n, rng)
    return np.full(P, 1500.0) + rng.normal(0, 20, P), pairs, (rng.random(4 * n) < 0.55).astype(np.float64)


@case(_elo_rounds)
def elo_batched_rounds_add_at(r, pairs, score, K=24.0, rounds=4):
    """Elo ratings updated round by round, the rating changes scattered with np.add.at."""
    M = pairs.shape[0]
    per = M // rounds
    for k in range(rounds):
        pr = pairs[k * per:(k + 1) * per]
        s = score[k * per:(k + 1) * per]
        ra, rb = r[pr[:, 0]], r[pr[:, 1]]
        ea = 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
        np.add.at(r, pr[:, 0], K * (s - ea))
        np.add.at(r, pr[:, 1], -K * (s - ea))
    return r, np.argsort(-r, kind="stable")


def _elo_games(n, rng):
    pairs, P = _pairs(n, rng, 2 * n + 1)
    m = pairs.shape[0]
    return (np.full(P, 1500.0, dtype=np.float32), pairs[:, 0].astype(np.int32), pairs[:, 1].astype(np.int32),
            rng.integers(0, 5, m).astype(np.int32), rng.integers(0, 4, m).astype(np.int32))


@case(_elo_games)
def elo_sequential_f32_home_adv(r, home, away, hs, as_, K=20.0, hfa=65.0):
    """Sequential float32 Elo with home advantage and a margin-of-victory multiplier."""
    for i in range(home.shape[0]):
        h, a = home[i], away[i]
        diff = r[a] - (r[h] + hfa)
        e_h = 1.0 / (1.0 + np.power(np.float32(10.0), diff / np.float32(400.0)))
        res = np.where(hs[i] > as_[i], 1.0, np.where(hs[i] == as_[i], 0.5, 0.0)).astype(np.float32)
        mult = np.log(np.abs(hs[i] - as_[i]) + 1.0).astype(np.float32) + np.float32(1.0)
        d = np.float32(K) * mult * (res - e_h)
        r[h] += d
        r[a] -= d
    return np.rint(r).astype(np.int32)


def _wins(n, rng):
    W = rng.integers(0, 6, (n + 2, n + 2))
    np.fill_diagonal(W, 0)
    return (W + 1 - np.eye(n + 2, dtype=W.dtype),)


@case(_wins)
def bradley_terry_mm(W, iters=12):
    """Bradley-Terry strengths by minorisation-maximisation from an integer win matrix."""
    n = W.shape[0]
    N = W + W.T
    wins = W.sum(axis=1)
    p = np.ones(n)
    for _ in range(iters):
        denom = (N / (p[:, None] + p[None, :])).sum(axis=1)
        p = wins / denom
        p /= p.sum()
    return p, p[:, None] / (p[:, None] + p[None, :])


def _links(n, rng):
    A = (rng.random((2 * n, 2 * n)) < 0.3).astype(np.int8)
    np.fill_diagonal(A, 0)
    A[1] = 0
    return (A,)


@case(_links)
def pagerank_dangling_f32(A, d=0.85, iters=6):
    """Float32 PageRank with dangling nodes found by a mask and their mass summed through it."""
    n = A.shape[0]
    A = A.astype(np.float32)
    out = A.sum(axis=1)
    dangling = out == 0
    out[dangling] = 1
    T = A / out[:, None]
    r = np.full(n, 1.0 / n, dtype=np.float32)
    for _ in range(iters):
        dang = r[dangling].sum()
        r_new = (1 - d) / n + d * (T.T @ r + dang / n)
        r = r_new / r_new.sum()
    return r, np.argsort(r)[::-1]


def _league(n, rng):
    pairs, P = _pairs(n, rng)
    return pairs[:, 0], pairs[:, 1], rng.integers(0, 5, 4 * n), rng.integers(0, 4, 4 * n), P


@case(_league)
def league_table_lexsort(home, away, hg, ag, n):
    """League table: points and goals scattered with np.add.at, sorted with np.lexsort."""
    pts = np.zeros(n, dtype=np.int64)
    gf = np.zeros(n, dtype=np.int64)
    ga = np.zeros(n, dtype=np.int64)
    ph = np.where(hg > ag, 3, np.where(hg == ag, 1, 0))
    pa = np.where(ag > hg, 3, np.where(hg == ag, 1, 0))
    np.add.at(pts, home, ph)
    np.add.at(pts, away, pa)
    np.add.at(gf, home, hg)
    np.add.at(gf, away, ag)
    np.add.at(ga, home, ag)
    np.add.at(ga, away, hg)
    gd = gf - ga
    order = np.lexsort((-gf, -gd, -pts))
    return np.stack([order, pts[order], gd[order], gf[order]], axis=1)


@case(lambda n, rng: (np.linspace(0.3, 0.8, n + 3) + rng.uniform(0, 0.01, n + 3),))
def tennis_game_win_prob(p):
    """Probability the server wins a game: a DP over (points, points) with a closed-form deuce."""
    q = 1 - p
    deuce = p * p / (p * p + q * q)
    G = np.zeros((5, 5) + p.shape)
    for i in range(4, -1, -1):
        for j in range(4, -1, -1):
            if i == 4 and j <= 2:
                G[i, j] = 1.0
            elif j == 4 and i <= 2:
                G[i, j] = 0.0
            elif i >= 3 and j >= 3:
                if i == j:
                    G[i, j] = deuce
                elif i > j:
                    G[i, j] = p + q * deuce
                else:
                    G[i, j] = p * deuce
            else:
                G[i, j] = p * G[min(i + 1, 4), j] + q * G[i, min(j + 1, 4)]
    return G[0, 0], G


def _results(n, rng):
    pairs, P = _pairs(n, rng)
    return pairs[:, 0], pairs[:, 1], P


@case(_results)
def win_matrix_from_results_int(winner, loser, n):
    """Int32 win matrix by add.at, win percentages by divide(where=), wins against strong teams."""
    Wm = np.zeros((n, n), dtype=np.int32)
    np.add.at(Wm, (winner, loser), 1)
    games = Wm + Wm.T
    pct = np.divide(Wm.sum(axis=1), games.sum(axis=1), out=np.zeros(n), where=games.sum(axis=1) > 0)
    beat_strong = (Wm * (pct[None, :] > 0.5)).sum(axis=1)
    return Wm, pct, beat_strong


@case(lambda n, rng: (np.full(n + 3, 1500, dtype=np.int16), rng.integers(0, n + 3, 2 * n),
                      rng.integers(0, n + 3, 2 * n)))
def elo_int16_ratings_add_at(r, w, lo, K=16):
    """Int16 Elo ratings: rounded changes added and subtracted with np.add.at / np.subtract.at."""
    ra = r[w].astype(np.float64)
    rb = r[lo].astype(np.float64)
    e = 1 / (1 + 10 ** ((rb - ra) / 400))
    d = np.rint(K * (1 - e)).astype(np.int16)
    np.add.at(r, w, d)
    np.subtract.at(r, lo, d)
    return r, d


@case(lambda n, rng: (np.full(3, 1500.0, dtype=np.float32), rng.integers(0, 3, 80 * n),
                      (rng.normal(size=80 * n) * 10).astype(np.float32)))
def elo_float32_add_at_many_duplicates(r, idx, d):
    """Float32 np.add.at with hundreds of duplicates: the sequential order sets the rounding."""
    np.add.at(r, idx, d)
    return r


@case(lambda n, rng: (rng.integers(0, 10, 4 * n), rng.integers(0, 3, 4 * n), np.arange(4 * n)[::-1].copy()))
def standings_lexsort(points, h2h, ids):
    """Tie-broken standings by np.lexsort; ranks by a scatter of arange through the order."""
    order = np.lexsort((ids, -h2h, -points))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return order, rank


# === ranking metrics ======================================================================
def _scores_rel(n, rng):
    Q, D = n + 1, 2 * n + 4
    return rng.normal(size=(Q, D)), rng.random((Q, D)) < 0.2


@case(lambda n, rng: (np.round(rng.normal(size=8 * n), 1), np.arange(8 * n) % 3 == 0))
def auc_mann_whitney_avg_ranks(scores, labels):
    """ROC AUC by the Mann-Whitney statistic with tied ranks averaged by two searchsorted calls."""
    s = np.sort(scores)
    lo = np.searchsorted(s, scores, side="left")
    hi = np.searchsorted(s, scores, side="right")
    ranks = (lo + hi + 1) / 2.0
    npos = labels.sum()
    nneg = labels.size - npos
    auc = (ranks[labels].sum() - npos * (npos + 1) / 2) / (npos * nneg)
    return auc, ranks


@case(_scores_rel)
def mean_reciprocal_rank(scores, relevant):
    """Mean reciprocal rank: relevance sorted by score with take_along_axis, first hit by argmax."""
    order = np.argsort(-scores, axis=1, kind="stable")
    rs = np.take_along_axis(relevant, order, axis=1)
    first = rs.argmax(axis=1)
    rr = np.where(rs.any(axis=1), 1.0 / (first + 1), 0.0)
    return rr, rr.mean()


@case(_scores_rel)
def average_precision_cumsum(scores, relevant):
    """Average precision per query from the cumulative hits of the sorted relevance."""
    order = np.argsort(-scores, axis=1, kind="stable")
    r = np.take_along_axis(relevant, order, axis=1).astype(np.float64)
    cum = np.cumsum(r, axis=1)
    prec_at = cum / np.arange(1, r.shape[1] + 1)
    ap = (prec_at * r).sum(axis=1) / np.maximum(r.sum(axis=1), 1)
    return ap, ap.mean()


@case(lambda n, rng: (rng.integers(0, 15, (2 * n + 1, 4)), rng.integers(0, 15, 2 * n + 1), 15))
def hitrate_coverage_gini(topk, test_item, n_items):
    """Recommendation hit rate, np.isin, catalogue coverage and the Gini index of exposure."""
    hit = (topk == test_item[:, None]).any(axis=1)
    isin = np.isin(topk, np.array([0, 1, 2]))
    cnt = np.zeros(n_items, dtype=np.int64)
    np.add.at(cnt, topk.ravel(), 1)
    coverage = (cnt > 0).mean()
    c = np.sort(cnt).astype(np.float64)
    idx = np.arange(1, c.size + 1)
    gini = ((2 * idx - c.size - 1) * c).sum() / (c.size * c.sum())
    return hit.mean(), isin.sum(), coverage, gini


@case(lambda n, rng: (np.round(rng.normal(size=(n + 1, 2 * n + 3)), 0),))
def topk_float32_ties_take_along(scores, k=3):
    """Top-k with ties (stable argsort), a put_along_axis mask and the rest zeroed by ~mask."""
    s = scores.astype(np.float32)
    idx = np.argsort(-s, axis=-1, kind="stable")[..., :k]
    val = np.take_along_axis(s, idx, axis=-1)
    mask = np.zeros_like(s, dtype=bool)
    np.put_along_axis(mask, idx, True, axis=-1)
    s[~mask] = 0
    return idx, val, s


@case(lambda n, rng: (rng.normal(size=5 * n), np.arange(5 * n) % 3 == 1))
def recall_curve_cumsum_out(scores, labels):
    """ROC curve by cumsum(out=) of sorted labels and its area by np.trapezoid."""
    order = np.argsort(-scores, kind="stable")
    lab = labels[order]
    tp = np.empty(lab.shape[0], dtype=np.int64)
    np.cumsum(lab, out=tp)
    fp = np.arange(1, lab.shape[0] + 1) - tp
    tpr = tp / labels.sum()
    fpr = fp / (labels.size - labels.sum())
    auc = np.trapezoid(np.concatenate([[0.0], tpr]), np.concatenate([[0.0], fpr]))
    return tpr, fpr, auc


@case(lambda n, rng: (rng.normal(size=(n + 1, 2 * n + 4)), rng.integers(0, 4, (n + 1, 2 * n + 4)) >= 2))
def precision_recall_at_k_argsort(scores, relevant, k=4):
    """Precision, recall and F1 at k from argsorted scores (the argpartition idiom, rewritten)."""
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    hits = np.take_along_axis(relevant, top, axis=1)
    prec = hits.sum(axis=1) / k
    nrel = relevant.sum(axis=1)
    rec = np.where(nrel > 0, hits.sum(axis=1) / np.maximum(nrel, 1), 0.0)
    f1 = np.where(prec + rec > 0, 2 * prec * rec / np.where(prec + rec > 0, prec + rec, 1), 0.0)
    return prec, rec, f1


@case(lambda n, rng: ((rng.random((n + 4, 2 * n + 4)) < 0.35).astype(np.float64),))
def itemknn_topk_exclude_seen_argsort(R, k=3):
    """Item-kNN recommendations: cosine similarities, seen items masked to -inf, top-k by argsort."""
    norms = np.sqrt((R * R).sum(axis=0))
    norms[norms == 0] = 1
    Rn = R / norms
    S = Rn.T @ Rn
    np.fill_diagonal(S, 0)
    scores = R @ S
    scores[R > 0] = -np.inf
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return top, np.take_along_axis(scores, top, axis=1)


def _triplets(n, rng):
    nu, ni, kf, nt = n + 2, n + 3, 3, n + 3
    return (rng.normal(size=(nu, kf)) * 0.1, rng.normal(size=(ni, kf)) * 0.1, rng.integers(0, nu, nt),
            rng.integers(0, ni, nt), rng.integers(1, 6, nt).astype(np.float64))


@case(_triplets)
def mf_sgd_triplets(Pm, Qm, u, i, r, lr=0.05, reg=0.02, epochs=1):
    """Matrix factorisation by SGD over (user, item, rating) triplets, rows updated in place."""
    for _ in range(epochs):
        for t in range(u.shape[0]):
            pu = Pm[u[t]].copy()
            qi = Qm[i[t]]
            err = r[t] - pu @ qi
            Pm[u[t]] += lr * (err * qi - reg * pu)
            Qm[i[t]] += lr * (err * pu - reg * qi)
    pred = Pm @ Qm.T
    return np.sqrt(((pred[u, i] - r) ** 2).mean())


@case(lambda n, rng: (rng.normal(size=(n + 1, 2 * n + 4)), rng.integers(0, 4, (n + 1, 2 * n + 4))))
def dcg_gains_dot_list_weights(scores, rel):
    """Graded gains weighted by np.dot with a list; pins session 20's lists given to np.dot(x, [..])."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :3]
    gains = np.take_along_axis(rel, order, axis=1).astype(np.float64)
    weighted = np.dot(gains, [1.0, 0.5, 0.25])
    return weighted, weighted / np.maximum(np.dot(np.sort(rel, axis=1)[:, ::-1][:, :3], [1.0, 0.5, 0.25]), 1.0)


# === queueing and inventory ===============================================================
@case(lambda n, rng: (np.cumsum(rng.exponential(1.0, 3 * n)), rng.exponential(2.5, 3 * n)))
def multi_server_fifo_argmin(arrivals, service, c=3):
    """FIFO multi-server queue: the next free server by a traced argmin, its clock written back."""
    n = arrivals.shape[0]
    free = np.zeros(c)
    start = np.empty(n)
    finish = np.empty(n)
    server = np.empty(n, dtype=np.int64)
    for i in range(n):
        k = np.argmin(free)
        start[i] = np.maximum(free[k], arrivals[i])
        finish[i] = start[i] + service[i]
        free[k] = finish[i]
        server[i] = k
    wait = start - arrivals
    util = np.zeros(c)
    np.add.at(util, server, service)
    return wait.mean(), wait.max(), server, util / finish.max()


def _tandem(n, rng):
    shape = (3, 3 * n)
    return np.cumsum(rng.exponential(1.0, shape), axis=1), rng.exponential(0.8, shape), rng.exponential(0.9, shape)


@case(_tandem)
def tandem_queue_replications(A, S1, S2):
    """Two queues in tandem over replications, departures by column recursion, 90th percentile."""
    R, n = A.shape
    D1 = np.zeros((R, n))
    D2 = np.zeros((R, n))
    D1[:, 0] = A[:, 0] + S1[:, 0]
    D2[:, 0] = D1[:, 0] + S2[:, 0]
    for i in range(1, n):
        D1[:, i] = np.maximum(A[:, i], D1[:, i - 1]) + S1[:, i]
        D2[:, i] = np.maximum(D1[:, i], D2[:, i - 1]) + S2[:, i]
    sojourn = D2 - A
    return sojourn.mean(axis=1), np.percentile(sojourn, 90, axis=1)


@case(lambda n, rng: (rng.poisson(12, 3 * n),))
def sS_inventory_leadtime_pipeline(demand, s=20, S=60, L=3, h=1.0, p=5.0, K=30.0):
    """(s, S) inventory with a lead-time pipeline shifted in place and lost sales."""
    T = demand.shape[0]
    pipe = np.zeros(L + 1, dtype=np.int64)
    onhand = np.int64(40)
    cost = np.zeros(T)
    lost = np.zeros(T, dtype=np.int64)
    for t in range(T):
        onhand = onhand + pipe[0]
        pipe[:-1] = pipe[1:]
        pipe[-1] = 0
        sold = np.minimum(onhand, demand[t])
        lost[t] = demand[t] - sold
        onhand = onhand - sold
        pos = onhand + pipe.sum()
        q = np.where(pos <= s, S - pos, 0)
        pipe[L - 1] += q
        cost[t] = h * onhand + p * lost[t] + K * (q > 0)
    return cost.sum(), lost.sum(), onhand


@case(lambda n, rng: (rng.poisson(20, 8 * n),))
def newsvendor_grid(demand, price=5.0, cost=3.0, salvage=1.0):
    """Newsvendor: profits over an order grid and the critical fractile by quantile(inverted_cdf)."""
    Qg = np.arange(0, 41, 2)
    sold = np.minimum(Qg[:, None], demand[None, :])
    left = Qg[:, None] - sold
    profit = price * sold + salvage * left - cost * Qg[:, None]
    mean_profit = profit.mean(axis=1)
    best = np.argmax(mean_profit)
    frac = (price - cost) / (price - salvage)
    return Qg[best], mean_profit, np.quantile(demand, frac, method="inverted_cdf")


@case(lambda n, rng: (rng.integers(1, 6, 4 * n).astype(np.float32), rng.exponential(1.0, 4 * n).astype(np.float32)))
def token_bucket_rate_limiter(req, dt, cap=10.0, rate=2.0):
    """Token-bucket rate limiter in float32, the bucket level a traced scalar carried through the loop."""
    T = req.shape[0]
    tokens = np.float32(cap)
    allowed = np.zeros(T, dtype=bool)
    level = np.zeros(T, dtype=np.float32)
    for t in range(T):
        tokens = np.minimum(np.float32(cap), tokens + np.float32(rate) * dt[t])
        ok = req[t] <= tokens
        allowed[t] = ok
        tokens = tokens - np.where(ok, req[t], np.float32(0))
        level[t] = tokens
    return allowed, level


@case(lambda n, rng: (rng.poisson(10, 4 * n).astype(np.int32),))
def backorder_inventory_int32_clip(demand, order_up_to=50, review=4):
    """Periodic review with backorders in int32, on-hand and backlog by clip(out=)."""
    T = demand.shape[0]
    inv = np.zeros(T + 1, dtype=np.int32)
    inv[0] = order_up_to
    onhand = np.zeros(T, dtype=np.int32)
    back = np.zeros(T, dtype=np.int32)
    for t in range(T):
        level = inv[t] - demand[t]
        if t % review == review - 1:
            level = np.int32(order_up_to) + np.minimum(level, 0)
        inv[t + 1] = level
    np.clip(inv[1:], 0, None, out=onhand)
    np.clip(-inv[1:], 0, None, out=back)
    return inv, onhand, back, 1 - back.sum() / demand.sum()


@case(lambda n, rng: (np.sort(rng.uniform(0, 8, 24 * n)),))
def call_center_staffing_searchsorted(arrival_times, horizon=8.0, slot=0.5):
    """Calls per slot by searchsorted of static edges, staffing by the square-root rule."""
    edges = np.arange(0, horizon + slot, slot)
    counts = np.diff(np.searchsorted(arrival_times, edges, side="left"))
    cum = np.empty(counts.shape[0], dtype=np.int64)
    np.cumsum(counts, out=cum)
    load = counts / slot * 0.1
    agents = np.ceil(load + 2 * np.sqrt(load)).astype(np.int64)
    np.maximum(agents, 1, out=agents)
    return counts, cum, agents


@case(lambda n, rng: (rng.poisson(5, (n + 1, 2 * n)).astype(np.float64), rng.uniform(3, 10, n + 1),
                      rng.uniform(12, 30, n + 1)))
def multi_item_periodic_review_columns(demand, s, S):
    """Several items reviewed each period: columns of a Fortran-ordered history written in turn."""
    K, T = demand.shape
    inv = S.astype(np.float64).copy()
    hist = np.zeros((K, T), order="F")
    orders = np.zeros((K, T))
    for t in range(T):
        inv -= demand[:, t]
        need = inv < s
        orders[:, t] = np.where(need, S - inv, 0.0)
        inv += orders[:, t]
        hist[:, t] = inv
    return hist, orders.sum(axis=1), np.minimum(hist, 0).sum(axis=1)


def _parking(n, rng):
    a = rng.integers(0, 20, 8 * n)
    return a, np.minimum(a + rng.integers(1, 8, 8 * n), 24), 24


@case(_parking)
def parking_lot_occupancy_add_at(arrive_slot, leave_slot, nslots):
    """Occupancy from +1/-1 events scattered with np.add.at and a running sum."""
    delta = np.zeros(nslots + 1, dtype=np.int64)
    np.add.at(delta, arrive_slot, 1)
    np.add.at(delta, leave_slot, -1)
    occ = np.cumsum(delta)[:-1]
    return occ, occ.max(), (occ >= 10).sum()


@case(lambda n, rng: (rng.exponential(0.9, 6 * n), rng.exponential(1.0, 6 * n)))
def lindley_via_minimum_accumulate(service, interarrival):
    """Waiting times by Lindley's recursion in closed form: cumsum and minimum.accumulate into out=."""
    X = service[:-1] - interarrival[1:]
    S = np.empty(X.shape[0] + 1)
    S[0] = 0.0
    np.cumsum(X, out=S[1:])
    m = np.empty_like(S)
    np.minimum.accumulate(S, out=m)
    return S - m


@case(lambda n, rng: (rng.integers(-100, 86400, 4 * n),))
def time_lanes_divmod(seconds):
    """Timestamps split into hour, minute and second lanes by // and %, shifts by nested where."""
    out = np.empty((seconds.shape[0], 3), dtype=np.int64)
    out[:, 0] = seconds // 3600
    out[:, 1] = (seconds // 60) % 60
    out[:, 2] = seconds % 60
    shift = np.where(out[:, 0] < 8, 0, np.where(out[:, 0] < 16, 1, 2))
    return out, shift


def _waits(n, rng):
    days = 14 * (n - 1) + 1
    return rng.integers(0, 120, days).astype(np.int16), rng.exponential(3.0, days)


@case(_waits)
def wait_percentiles_discrete_methods(wait_min, wait):
    """Service-level waits by percentile methods at whole q (29 and 57 values: whole positions);
    pins session 20's lower/higher/midpoint/inverted_cdf, also of int16 data."""
    out = []
    for method in ("lower", "higher", "midpoint", "inverted_cdf"):
        out.append(np.percentile(wait_min, [25, 50, 75], method=method))
        out.append(np.percentile(wait, 50, method=method))
        out.append(np.quantile(wait, np.array([0.25, 0.75]), method=method))
    return out


# === tabular wrangling ====================================================================
GROUPS = 4


def _keys_vals(n, rng):
    return rng.integers(0, GROUPS, 4 * n).astype(np.int64), rng.normal(10, 3, 4 * n)


@case(_keys_vals)
def groupby_demean_transform(keys, vals):
    """Group means by weighted histograms of the keys, subtracted in place (a groupby transform)."""
    sums, _ = np.histogram(keys, bins=GROUPS, range=(0, GROUPS), weights=vals)
    counts, _ = np.histogram(keys, bins=GROUPS, range=(0, GROUPS))
    means = sums / np.where(counts == 0, 1, counts)
    vals -= means[keys]
    return vals


@case(_keys_vals)
def last_value_per_group_fancy_assign(keys, vals):
    """Last and first value per group by fancy assignment: NumPy's last write wins."""
    last = np.full(GROUPS, np.nan)
    last[keys] = vals
    first = np.full(GROUPS, np.nan)
    first[keys[::-1]] = vals[::-1]
    return last, first


@case(lambda n, rng: (rng.integers(0, 5, 4 * n).astype(np.int16),))
def one_hot_encode(cats):
    """One-hot encoding by a fancy write into uint8 and by indexing np.eye(dtype=bool)."""
    n = cats.shape[0]
    oh = np.zeros((n, 5), dtype=np.uint8)
    oh[np.arange(n), cats] = 1
    oh2 = np.eye(5, dtype=bool)[cats]
    return oh, oh2, oh.argmax(axis=1), oh.sum(axis=0)


def _pivot32(n, rng):
    return rng.integers(0, 3, 4 * n), rng.integers(0, 4, 4 * n), rng.gamma(2.0, 50.0, 4 * n).astype(np.float32)


@case(_pivot32)
def pivot_with_margins_out(region, month, sales):
    """A float32 pivot whose margins are written with sum(out=) into views of the same table."""
    t = np.zeros((4, 5), dtype=np.float32)
    np.add.at(t[:3, :4], (region, month), sales)
    np.sum(t[:3, :4], axis=0, out=t[3, :4])
    np.sum(t[:3, :4], axis=1, out=t[:3, 4])
    t[3, 4] = t[:3, :4].sum()
    cnt = np.zeros((3, 4), dtype=np.int32)
    np.add.at(cnt, (region, month), 1)
    avg = np.zeros((3, 4), dtype=np.float32)
    np.divide(t[:3, :4], cnt, out=avg, where=cnt > 0)
    mx = np.full((3, 4), -np.inf, dtype=np.float32)
    np.maximum.at(mx, (region, month), sales)
    share = np.empty_like(t[:3, :4])
    np.divide(t[:3, :4], t[3:4, :4], out=share)
    return t, avg, mx, share


@case(_pivot32)
def summary_stats_rows_out(region, month, sales):
    """describe()-style summary rows written by mean/std/min/max/median with out=."""
    X = np.stack([sales, sales * 0.5 + month, sales - region * 10], axis=1)
    summary = np.empty((5, 3), dtype=np.float64)
    np.mean(X, axis=0, out=summary[0], dtype=np.float64)
    np.std(X, axis=0, out=summary[1], dtype=np.float64)
    np.min(X, axis=0, out=summary[2])
    np.max(X, axis=0, out=summary[3])
    np.median(X, axis=0, out=summary[4])
    return summary


@case(lambda n, rng: (rng.normal(100, 5, 3 * n),))
def rolling_window_features(x):
    """Rolling mean, std, range and z-score over sliding windows, NaN-padded at the start."""
    w = 3
    win = sliding_window_view(x, w)
    feats = np.full((x.shape[0], 4), np.nan)
    feats[w - 1:, 0] = win.mean(axis=-1)
    feats[w - 1:, 1] = win.std(axis=-1)
    feats[w - 1:, 2] = win.max(axis=-1) - win.min(axis=-1)
    feats[w - 1:, 3] = (x[w - 1:] - feats[w - 1:, 0]) / feats[w - 1:, 1]
    return feats


@case(lambda n, rng: (rng.integers(0, 6, 4 * n).astype(np.int32),))
def ranks_stable_with_ties(x):
    """Ordinal ranks by double stable argsort and dense ranks by a sorted new-group cumsum."""
    r = np.argsort(np.argsort(x, kind="stable"), kind="stable")
    s = np.sort(x)
    newgrp = np.concatenate(([0], (s[1:] != s[:-1]).astype(np.int64)))
    dense_sorted = np.cumsum(newgrp)
    dense = np.empty_like(dense_sorted)
    dense[np.argsort(x, kind="stable")] = dense_sorted
    return r, dense


def _with_nans(n, rng):
    x = rng.normal(0, 1, (4 * n, 3))
    x[rng.random(x.shape) < 0.3] = np.nan
    x[0, 1] = 1.5
    return (x,)


@case(_with_nans)
def ffill_maximum_accumulate(x):
    """Forward fill of NaNs by a maximum.accumulate of valid row indices (out= the input)."""
    n = x.shape[0]
    mask = ~np.isnan(x)
    idx = np.where(mask, np.arange(n)[:, None], 0)
    np.maximum.accumulate(idx, axis=0, out=idx)
    return x[idx, np.arange(x.shape[1])], idx


@case(_with_nans)
def fillna_column_means_mask_write(x):
    """NaNs filled with column nanmeans by np.where, and zeroed in place through a mask."""
    col_mean = np.nanmean(x, axis=0)
    filled = np.where(np.isnan(x), col_mean, x)
    x[np.isnan(x)] = 0.0
    return filled, x


@case(lambda n, rng: (rng.normal(50, 10, (3 * n, 4)).astype(np.float32),))
def zscore_float32_transposed_view(X):
    """Float32 columns standardised in place through the transposed view."""
    XT = X.T
    mu = XT.mean(axis=1, keepdims=True)
    sd = XT.std(axis=1, keepdims=True)
    XT -= mu
    XT /= sd
    return X


@case(lambda n, rng: (rng.normal(0, 1, (6 * n, 3)),))
def winsorize_by_percentile(X):
    """Winsorising at the 5th/95th percentiles with clip(out=), then quartiles and the IQR."""
    lo, hi = np.percentile(X, [5, 95], axis=0)
    np.clip(X, lo, hi, out=X)
    q = np.quantile(X, [0.25, 0.5, 0.75], axis=0)
    return X, q, q[2] - q[0]


@case(lambda n, rng: (rng.uniform(0, 90, 4 * n),))
def binning_list_edges_and_searchsorted_list(age):
    """Binning with list edges; pins session 20's np.searchsorted([..], x) and histogram edges given as a list."""
    bins = np.array([18.0, 30.0, 45.0, 65.0])
    b1 = np.digitize(age, bins)
    b2 = np.digitize(age, bins, right=True)
    b3 = np.searchsorted([18.0, 30.0, 45.0, 65.0], age, side="right")
    counts, edges = np.histogram(age, bins=[0, 18, 30, 45, 65, 90])
    labels = np.array([0, 1, 2, 3, 4], dtype=np.int8)[b1]
    return b1, b2, b3, counts, edges, labels


@case(lambda n, rng: (rng.integers(0, GROUPS, 4 * n).astype(np.uint8), rng.normal(10, 3, 4 * n)))
def groupby_bincount_uint8_keys(keys, vals):
    """Group sums and counts by np.bincount of uint8 keys (static length 256), sliced to the groups."""
    sums = np.bincount(keys, weights=vals, minlength=256)[:GROUPS]
    counts = np.bincount(keys, minlength=256)[:GROUPS]
    return sums, counts, sums / np.maximum(counts, 1)


@case(lambda n, rng: (rng.integers(0, GROUPS, 8 * n).astype(np.uint8), rng.gamma(2.0, 50.0, 8 * n).astype(np.float32)))
def groupby_bincount_float32_weights(keys, sales):
    """Float32 sales summed per store by bincount; pins session 20's float64 sums of float32 weights."""
    sums = np.bincount(keys, weights=sales, minlength=256)[:GROUPS]
    share = sums / sums.sum()
    return sums, share


@case(lambda n, rng: (np.sort(rng.choice(50, 2 * n, replace=False)), rng.normal(0, 1, 2 * n),
                      rng.integers(0, 50, 3 * n)))
def left_join_by_searchsorted(right_keys, right_vals, left_keys):
    """A left join on sorted keys: searchsorted positions, matches, NaN where missing."""
    pos = np.searchsorted(right_keys, left_keys)
    pos_c = np.clip(pos, 0, len(right_keys) - 1)
    found = right_keys[pos_c] == left_keys
    return pos, found, np.where(found, right_vals[pos_c], np.nan)


@case(lambda n, rng: (rng.normal(0, 1, (4 * n, 3)),))
def cumulative_features_out_views(X):
    """Cumulative features written with cumsum/maximum.accumulate/cumprod into column-block views."""
    F = np.empty((X.shape[0], 9))
    np.cumsum(X, axis=0, out=F[:, 0:3])
    np.maximum.accumulate(X, axis=0, out=F[:, 3:6])
    np.cumprod(1 + X / 100, axis=0, out=F[:, 6:9])
    F[:, 0:3] /= np.arange(1, X.shape[0] + 1)[:, None]
    return F


def _kv_nan(n, rng):
    vals = rng.normal(0, 1, 4 * n)
    vals[::5] = np.nan
    return rng.integers(0, 3, 4 * n), vals


@case(_kv_nan)
def groupby_max_with_nans_propagate(keys, vals):
    """Group max with NaNs: np.maximum.at propagates them, np.fmax.at skips them."""
    mx = np.full(3, -np.inf)
    np.maximum.at(mx, keys, vals)
    fmx = np.full(3, -np.inf)
    np.fmax.at(fmx, keys, vals)
    s = np.zeros(3)
    np.add.at(s, keys, np.nan_to_num(vals))
    return mx, fmx, s


@case(lambda n, rng: (rng.integers(0, 4, 4 * n), rng.normal(0, 1, (4 * n, 3))))
def add_at_with_slice_and_negative_index(keys, X):
    """np.add.at with a (keys, slice) index, negative keys and a list of indices."""
    acc = np.zeros((4, 3))
    np.add.at(acc, (keys, slice(None)), X)
    acc2 = np.zeros((4, 3))
    np.add.at(acc2, keys - 4, X)
    cols = np.zeros(3)
    np.add.at(cols, [0, 2, 2, -1], 1.0)
    return acc, acc2, cols


def _ledger(n, rng):
    amounts = np.round(rng.uniform(-1e6, 1e6, 10 * n), 2)
    amounts[rng.random(10 * n) < 0.2] = np.nan
    return amounts, rng.random(10 * n) < 0.7


@case(_ledger)
def ledger_running_balance_nancumsum(amounts, posted):
    """Running balances by nancumsum and cumulative_sum, reconciled against cumsum of the filled
    amounts (NumPy's differences are exactly zero); pins session 20's np.nancumsum/np.cumulative_sum order."""
    filled = np.where(np.isnan(amounts), 0.0, amounts)
    balance = np.nancumsum(amounts)
    opening = np.cumulative_sum(filled, include_initial=True)
    posted_balance = np.nancumsum(np.where(posted, amounts, np.nan))
    return (balance, balance - np.cumsum(filled), opening[1:] - np.cumsum(filled), posted_balance,
            np.nancumprod(amounts[:4] / 1e6))


@case(_ledger)
def ledger_posted_total_masked_sum(amounts, posted):
    """Total and mean of posted amounts a[mask], reconciled against a running sum (NumPy's pairwise
    against sequential order); pins session 20's a[mask].sum()/.mean() with a traced mask, bit for bit."""
    a = np.nan_to_num(amounts)
    total = a[posted].sum()
    mean = a[posted].mean()
    return total, mean, total - np.cumsum(np.where(posted, a, 0.0))[-1]


@case(lambda n, rng: (rng.normal(0, 1, 3 * n), rng.normal(0, 1, 3 * n), rng.normal(0, 1, 3 * n)))
def columnwise_max_mean_of_stack(a, b, c):
    """Row-wise extremes and means of three columns stacked (a list of them NumPy converts itself: refused)."""
    cols = np.stack([a, b, c])
    hi = np.max(cols, axis=0)
    lo = np.min(np.stack((a, b, c)), axis=0)
    avg = np.mean(cols, axis=0)
    return hi, lo, avg, np.sum(np.stack((a, b)), axis=0)


# === compression and encoding =============================================================
def _ts_int(n, rng):
    return (np.cumsum(rng.integers(-50, 60, 6 * n)).astype(np.int32) + 1000,)


@case(_ts_int)
def delta_encode_decode_int32(x):
    """Delta coding of an int32 series (diff with a prepended np.int32) and decoding by cumsum(out=)."""
    d = np.diff(x, prepend=np.int32(0))
    enc = np.empty_like(x)
    enc[0] = x[0]
    enc[1:] = x[1:] - x[:-1]
    dec = np.empty_like(enc)
    np.cumsum(enc, out=dec)
    return d, enc, dec, np.array_equal(dec, x)


@case(_ts_int)
def delta_of_delta_int16_wrap(x):
    """Delta-of-delta coding in int16 with wraparound, decoded by cumsum(dtype=np.int16)."""
    x16 = x.astype(np.int16)
    d1 = np.diff(x16)
    d2 = np.diff(d1)
    r1 = np.concatenate((x16[1:2] - x16[:1], d2)).cumsum(dtype=np.int16)
    r0 = np.concatenate((x16[:1], r1)).cumsum(dtype=np.int16)
    return d1, d2, r0


@case(_ts_int)
def zigzag_encode_decode(x):
    """Zigzag coding of int32 deltas through a uint32 view, and back."""
    d = np.diff(x, prepend=np.int32(0))
    z = ((d << 1) ^ (d >> 31)).view(np.uint32)
    back = (z >> 1).astype(np.int32) ^ -(z & 1).astype(np.int32)
    return z, back, np.all(back == d)


@case(lambda n, rng: (rng.normal(0, 1, (n, 8)),))
def quantize_int8_symmetric(w):
    """Symmetric int8 quantisation per row: rint(out=), clip(out=) and a cast into int8 with [...] =."""
    amax = np.abs(w).max(axis=1, keepdims=True)
    s = amax / 127.0
    q = np.empty(w.shape, dtype=np.int8)
    np.rint(w / s, out=w)
    np.clip(w, -127, 127, out=w)
    q[...] = w
    return q, s


@case(lambda n, rng: (rng.integers(0, 256, (n, 4)).astype(np.uint8),))
def bitplanes_pack_unpack(img):
    """Bit planes of uint8 pixels by unpackbits, repacked MSB-first and little-endian."""
    planes = np.unpackbits(img[..., None], axis=-1)
    lsb = planes[..., 7]
    packed = np.packbits(planes, axis=-1)[..., 0]
    little = np.packbits(planes[..., ::-1], axis=-1, bitorder="little")[..., 0]
    flat = np.packbits(lsb.ravel())
    return planes, packed, little, flat, np.array_equal(packed, img)


@case(lambda n, rng: (rng.random((n, 13)) < 0.5,))
def packbits_bool_rows_padding(m):
    """Boolean rows packed with padding, unpacked with count= (positive and negative), both bit orders."""
    p = np.packbits(m, axis=1)
    u = np.unpackbits(p, axis=1, count=13).astype(bool)
    pl = np.packbits(m, axis=1, bitorder="little")
    ul = np.unpackbits(pl, axis=1, count=-3, bitorder="little")
    return p, u, pl, ul


@case(lambda n, rng: (rng.integers(0, 256, 16 * n).astype(np.uint8),))
def adler32_checksum(data):
    """Adler-32 by cumulative sums in uint64 with the modulus."""
    MOD = 65521
    a = (1 + np.cumsum(data, dtype=np.uint64)) % MOD
    b = np.sum(a, dtype=np.uint64) % MOD
    return (b << np.uint64(16)) | a[-1]


@case(lambda n, rng: (np.repeat(rng.integers(0, 5, 2 * n), rng.integers(1, 4, 2 * n)).astype(np.int16),))
def run_length_static(x):
    """Run-length encoding with static shapes: run ids by cumsum, lengths by add.at, decoded by searchsorted."""
    n = x.shape[0]
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.not_equal(x[1:], x[:-1], out=start[1:])
    run_id = np.cumsum(start) - 1
    lengths = np.zeros(n, dtype=np.int64)
    np.add.at(lengths, run_id, 1)
    values = np.zeros(n, dtype=x.dtype)
    values[run_id] = x
    ends = np.cumsum(lengths)
    dec = values[np.searchsorted(ends, np.arange(n), side="right")]
    return start, run_id, lengths, values, start.sum(), dec


@case(lambda n, rng: (rng.integers(0, 256, 4 * n).astype(np.uint8),))
def bit_reverse_uint8(b):
    """Byte bit reversal by swapping masks, popcount by np.bitwise_count, parity by a shift loop."""
    r = b.copy()
    r = ((r & 0xF0) >> 4) | ((r & 0x0F) << 4)
    r = ((r & 0xCC) >> 2) | ((r & 0x33) << 2)
    r = ((r & 0xAA) >> 1) | ((r & 0x55) << 1)
    parity = np.zeros_like(b)
    for k in range(8):
        parity ^= (b >> k) & 1
    return r, np.bitwise_count(b), parity


@case(lambda n, rng: (rng.normal(0, 100, 4 * n).astype(np.float32),))
def float32_to_bfloat16_bits(x):
    """float32 to bfloat16 by round-to-nearest-even on the uint32 bits, and back through a view."""
    u = x.view(np.uint32)
    rounding = ((u >> 16) & 1) + np.uint32(0x7FFF)
    bf = ((u + rounding) >> 16).astype(np.uint16)
    back = (bf.astype(np.uint32) << 16).view(np.float32)
    trunc = (u & np.uint32(0xFFFF0000)).view(np.float32)
    return bf, back, trunc


@case(lambda n, rng: (rng.integers(0, 2**32, 3 * n, dtype=np.uint64).astype(np.uint32),))
def byteswap_via_uint8_view(x):
    """Byte swaps of uint32 through a uint8 view (copied and in place) and by shifts."""
    b = x.view(np.uint8).reshape(-1, 4)
    sw = b[:, ::-1].copy().view(np.uint32).ravel()
    manual = ((x & 0xFF) << 24) | ((x & 0xFF00) << 8) | ((x >> 8) & 0xFF00) | (x >> 24)
    b[:, [0, 3]] = b[:, [3, 0]]
    return sw, manual, x


@case(lambda n, rng: (rng.normal(0, 1, (n, 16)).astype(np.float32),))
def blockwise_absmax_int4_quant(x):
    """Blockwise absmax int4 quantisation packed two per byte, decoded with sign extension."""
    blocks = x.reshape(x.shape[0], -1, 4)
    s = np.abs(blocks).max(axis=-1, keepdims=True) / 7.0
    s[s == 0] = 1.0
    q = np.clip(np.round(blocks / s), -8, 7).astype(np.int8)
    u = (q & 0x0F).astype(np.uint8)
    packed = u[..., 0::2] | (u[..., 1::2] << 4)
    lo = (packed & 0x0F).astype(np.int8)
    hi = (packed >> 4).astype(np.int8)
    lo = np.where(lo > 7, lo - 16, lo)
    hi = np.where(hi > 7, hi - 16, hi)
    dq = np.empty_like(blocks)
    dq[..., 0::2] = lo * s
    dq[..., 1::2] = hi * s
    return packed, dq.reshape(x.shape)


B64_ALPHABET = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype=np.uint8)


@case(lambda n, rng: (rng.integers(0, 256, (n, 6)).astype(np.uint8),))
def base64_encode_traced_table(data):
    """Base64 encoding: 3 bytes to four sextets, looked up in a module-level alphabet by np.asarray."""
    alphabet = np.asarray(B64_ALPHABET)
    g = data.reshape(data.shape[0], -1, 3).astype(np.uint32)
    w = (g[..., 0] << 16) | (g[..., 1] << 8) | g[..., 2]
    sext = np.stack([(w >> 18) & 63, (w >> 12) & 63, (w >> 6) & 63, w & 63], axis=-1)
    return alphabet[sext].reshape(data.shape[0], -1)


def _crc_table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, np.uint32(0xEDB88320) ^ (t >> 1), t >> 1)
    return t


CRC_TABLE = _crc_table()


@case(lambda n, rng: (rng.integers(0, 256, (n, 10)).astype(np.uint8),))
def crc32_table_driven(rows):
    """Table-driven CRC-32 of byte rows, the table indexed by traced bytes."""
    table = np.asarray(CRC_TABLE)
    crc = np.full(rows.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for i in range(rows.shape[1]):
        crc = table[(crc ^ rows[:, i]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(0xFFFFFFFF)


@case(lambda n, rng: (rng.integers(0, 10, (n, 16)).astype(np.int8),))
def luhn_checksum_negative_strides(d):
    """Luhn check digits from every other digit read with negative strides."""
    dd = d.astype(np.int32)
    doubled = dd[:, -2::-2] * 2
    doubled -= 9 * (doubled > 9)
    total = dd[:, ::-2].sum(axis=1) + doubled.sum(axis=1)
    check = (10 - (dd[:, :-1][:, ::-2] * 2 - 9 * (dd[:, :-1][:, ::-2] * 2 > 9)).sum(axis=1)
             - dd[:, :-1][:, -2::-2].sum(axis=1)) % 10
    return total, total % 10 == 0, check


# === finite elements and meshes ===========================================================
def _grid_mesh(n, rng, dtype=np.float64):
    """A perturbed (n x n) vertex grid triangulated into 2 (n - 1)^2 triangles, z from rng."""
    ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    V = np.stack([ii.ravel() + rng.uniform(-0.2, 0.2, n * n),
                  jj.ravel() + rng.uniform(-0.2, 0.2, n * n),
                  rng.normal(0, 0.3, n * n)], axis=1).astype(dtype)
    q = (ii[:-1, :-1] * n + jj[:-1, :-1]).ravel()
    F = np.concatenate([np.stack([q, q + n, q + 1], 1), np.stack([q + 1, q + n, q + n + 1], 1)]).astype(np.int64)
    return V, F


def _mesh32(n, rng):
    V, F = _grid_mesh(n, rng, np.float32)
    return V, F.astype(np.int32)


@case(lambda n, rng: (np.sort(rng.uniform(0, 1, n + 5)).astype(np.float32),))
def fem1d_tridiagonal_loop_thomas(x):
    """1-D Poisson by linear elements on a float32 mesh, solved by the Thomas algorithm in loops."""
    n = x.shape[0]
    h = np.diff(x)
    main_ = np.zeros(n, dtype=x.dtype)
    main_[:-1] += 1 / h
    main_[1:] += 1 / h
    off = -1 / h
    rhs = np.zeros(n, dtype=x.dtype)
    rhs[:-1] += h / 2
    rhs[1:] += h / 2
    main_[0] = main_[-1] = 1
    rhs[0] = rhs[-1] = 0
    lower = off.copy()
    upper = off.copy()
    upper[0] = 0
    lower[-1] = 0
    c = np.zeros(n - 1, dtype=x.dtype)
    d = np.zeros(n, dtype=x.dtype)
    c[0] = upper[0] / main_[0]
    d[0] = rhs[0] / main_[0]
    for i in range(1, n):
        m = main_[i] - lower[i - 1] * c[i - 1]
        if i < n - 1:
            c[i] = upper[i] / m
        d[i] = (rhs[i] - lower[i - 1] * d[i - 1]) / m
    u = np.empty_like(d)
    u[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        u[i] = d[i] - c[i] * u[i + 1]
    return u


def _lumped_mass(V, F):
    """Triangle areas of a planar mesh and the lumped P1 mass (a third of each area per corner),
    a helper the mass-matrix programs share, as users write one."""
    P = V[:, :2]
    e1 = P[F[:, 1]] - P[F[:, 0]]
    e2 = P[F[:, 2]] - P[F[:, 0]]
    area = 0.5 * np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
    lumped = np.zeros(V.shape[0])
    for k in range(3):
        np.add.at(lumped, F[:, k], area / 3)
    return area, lumped


@case(_grid_mesh)
def fem2d_mass_matrix_lumped_and_consistent(V, F):
    """P1 mass matrices: lumped by add.at per corner, consistent by add.at per (a, b) corner pair."""
    area, lumped = _lumped_mass(V, F)
    Me = (np.ones((3, 3)) + np.eye(3)) / 12.0
    M = np.zeros((V.shape[0], V.shape[0]))
    for a in range(3):
        for b in range(3):
            np.add.at(M, (F[:, a], F[:, b]), area * Me[a, b])
    return lumped, M


@case(_grid_mesh)
def vertex_normals_cross_add_at(V, F):
    """Vertex normals: face normals by np.cross scattered to corners with np.add.at, normalised."""
    v0, v1, v2 = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    fn = np.cross(v1 - v0, v2 - v0)
    vn = np.zeros_like(V)
    for k in range(3):
        np.add.at(vn, F[:, k], fn)
    vn /= np.linalg.norm(vn, axis=1, keepdims=True)
    return vn


@case(_mesh32)
def vertex_normals_float32_int32_faces(V, F):
    """Float32 vertex normals from int32 faces: V[F] gathers, repeated unit normals, divide(where=)."""
    tri = V[F]
    fn = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area2 = np.sqrt((fn ** 2).sum(axis=1))
    vn = np.zeros_like(V)
    np.add.at(vn, F.ravel(), np.repeat(fn / area2[:, None], 3, axis=0))
    lens = np.sqrt(np.sum(vn * vn, axis=1))
    np.divide(vn, lens[:, None], out=vn, where=lens[:, None] > 0)
    return vn, area2


@case(_grid_mesh)
def face_areas_edge_lengths(V, F):
    """Edge lengths through a fancy (faces, 3, 2) edge index; areas by Heron and by the cross product."""
    E = F[:, [[0, 1], [1, 2], [2, 0]]]
    d = V[E[..., 0]] - V[E[..., 1]]
    L = np.linalg.norm(d, axis=-1)
    s = L.sum(axis=1) / 2
    heron = np.sqrt(np.maximum(s * (s - L[:, 0]) * (s - L[:, 1]) * (s - L[:, 2]), 0))
    cr = 0.5 * np.linalg.norm(np.cross(d[:, 0], -d[:, 2]), axis=1)
    return L, heron, cr, L.min(), L.max()


@case(_grid_mesh)
def laplacian_smoothing_iterations(V, F):
    """Umbrella Laplacian smoothing: neighbour sums by add.at over directed edges, V updated in place."""
    E = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    E = np.concatenate([E, E[:, ::-1]])
    deg = np.zeros(V.shape[0])
    np.add.at(deg, E[:, 0], 1.0)
    for _ in range(3):
        nbr = np.zeros_like(V)
        np.add.at(nbr, E[:, 0], V[E[:, 1]])
        V += 0.5 * (nbr / deg[:, None] - V)
    return V


@case(_grid_mesh)
def mesh_flip_faces_and_edges_unique_static(V, F):
    """Faces flipped by a fancy column swap; unique edges counted by sorting codes (Euler characteristic)."""
    F2 = F[:, ::-1].copy()
    F[:, [1, 2]] = F[:, [2, 1]]
    keys = np.sort(np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]]), axis=1)
    code = keys[:, 0] * V.shape[0] + keys[:, 1]
    sc = code[np.argsort(code, kind="stable")]
    is_new = np.ones(sc.shape, dtype=bool)
    is_new[1:] = sc[1:] != sc[:-1]
    n_edges = is_new.sum()
    return F, F2, n_edges, V.shape[0] - n_edges + F.shape[0]


@case(_grid_mesh)
def boundary_edges_count_static(V, F):
    """Boundary edges counted by add.at over edge codes; fancy |= and += (not accumulating) on vertices."""
    E = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    Es = np.sort(E, axis=1)
    code = Es[:, 0] * V.shape[0] + Es[:, 1]
    cnt = np.zeros(V.shape[0] * V.shape[0], dtype=np.int64)
    np.add.at(cnt, code, 1)
    boundary_per_edge = cnt[code] == 1
    is_bverts = np.zeros(V.shape[0], dtype=bool)
    is_bverts[Es[:, 0]] |= boundary_per_edge
    hits = np.zeros(V.shape[0], dtype=np.int64)
    hits[Es[:, 1]] += 1
    return boundary_per_edge.sum(), boundary_per_edge, is_bverts, hits


@case(_grid_mesh)
def vertex_valence_and_one_ring_mean(V, F):
    """Vertex valence by add.at on int32 and the mean of the one-ring neighbours."""
    valence = np.zeros(V.shape[0], dtype=np.int32)
    np.add.at(valence, F.ravel(), 1)
    ring = np.zeros_like(V)
    for k in range(3):
        np.add.at(ring, F[:, k], V[F[:, (k + 1) % 3]] + V[F[:, (k + 2) % 3]])
    ring /= (2 * valence)[:, None]
    return valence, ring


def _mesh_selection(n, rng):
    V, F = _grid_mesh(n, rng)
    return V, F, rng.random(F.shape[0]) < 0.4


@case(_mesh_selection)
def selected_faces_touch_vertices_add_at_bool(V, F, selected):
    """Vertices touched by selected faces marked by np.add.at on a bool array (a logical or);
    pins session 20's np.add.at on bools."""
    touched = np.zeros(V.shape[0], dtype=bool)
    np.add.at(touched, F.ravel(), selected.repeat(3))
    first_corner = np.zeros(V.shape[0], dtype=bool)
    np.add.at(first_corner, F[:, 0], True)
    return touched, first_corner, np.where(touched[:, None], V, 0.0).sum(axis=0)


@case(_grid_mesh)
def lumped_mass_solve_diag_list(V, F):
    """A lumped-mass solve with a list right-hand side; pins session 20's np.linalg.solve(np.diag(x), [..])."""
    _, lumped = _lumped_mass(V, F)
    u = np.linalg.solve(np.diag(lumped[:3]), [1.0, 1.0, 1.0])
    return lumped, u


# === camera geometry ======================================================================
def _rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _camera(n, rng, dtype=np.float64):
    K = np.array([[500.0, 0, 320], [0, 510.0, 240], [0, 0, 1]])
    t = np.array([0.1, -0.2, 5.0])
    return K.astype(dtype), _rotation(rng).astype(dtype), t.astype(dtype), rng.normal(0, 1, (4 * n, 3)).astype(dtype)


@case(_camera)
def pinhole_projection_inplace_divide(K, R, t, X):
    """Pinhole projection by matmuls, the perspective divide in place on a column slice, in-image test."""
    Xc = X @ R.T + t
    uvw = Xc @ K.T
    uvw[:, :2] /= uvw[:, 2:3]
    uv = uvw[:, :2]
    inside = (uv[:, 0] >= 0) & (uv[:, 0] < 640) & (uv[:, 1] >= 0) & (uv[:, 1] < 480) & (Xc[:, 2] > 0)
    return uv, inside, Xc[:, 2]


@case(lambda n, rng: _camera(n, rng, np.float32))
def pinhole_projection_explicit_float32(K, R, t, X):
    """Float32 projection written out per coordinate, pixels by floor and an int32 cast."""
    Xc = np.empty_like(X)
    for i in range(3):
        Xc[:, i] = R[i, 0] * X[:, 0] + R[i, 1] * X[:, 1] + R[i, 2] * X[:, 2] + t[i]
    x = Xc[:, 0] / Xc[:, 2]
    y = Xc[:, 1] / Xc[:, 2]
    u = K[0, 0] * x + K[0, 2]
    v = K[1, 1] * y + K[1, 2]
    return u, v, np.floor(np.stack([u, v], axis=1)).astype(np.int32)


def _homography(n, rng):
    H = np.eye(3) + rng.normal(0, 0.05, (3, 3))
    H[2, 2] = 1.0
    return H, rng.uniform(0, 100, (4 * n, 2))


@case(_homography)
def homography_apply_homogeneous(H, pts):
    """A homography applied in homogeneous coordinates (hstack, matmul, divide) and elementwise."""
    ph = np.hstack([pts, np.ones((pts.shape[0], 1))])
    q = ph @ H.T
    q[:, :2] /= q[:, 2:]
    den = H[2, 0] * pts[:, 0] + H[2, 1] * pts[:, 1] + H[2, 2]
    x = (H[0, 0] * pts[:, 0] + H[0, 1] * pts[:, 1] + H[0, 2]) / den
    y = (H[1, 0] * pts[:, 0] + H[1, 1] * pts[:, 1] + H[1, 2]) / den
    return q[:, :2], np.column_stack([x, y])


def _distortion(n, rng):
    return rng.uniform(-0.5, 0.5, (4 * n, 2)), np.array([-0.2, 0.05, 0.001, -0.0005])


@case(_distortion)
def radial_undistort_fixed_point(xd, k):
    """Brown-Conrady undistortion by fixed-point iteration, columns rewritten in place."""
    k1, k2, p1, p2 = k[0], k[1], k[2], k[3]
    x = xd.copy()
    for _ in range(8):
        r2 = x[:, 0] ** 2 + x[:, 1] ** 2
        radial = 1 + k1 * r2 + k2 * r2 * r2
        dx = 2 * p1 * x[:, 0] * x[:, 1] + p2 * (r2 + 2 * x[:, 0] ** 2)
        dy = p1 * (r2 + 2 * x[:, 1] ** 2) + 2 * p2 * x[:, 0] * x[:, 1]
        x[:, 0] = (xd[:, 0] - dx) / radial
        x[:, 1] = (xd[:, 1] - dy) / radial
    return x


@case(lambda n, rng: (rng.uniform(0, 255, (n + 4, n + 6)).astype(np.float32), np.array([-0.15, 0.02])))
def undistort_image_remap_meshgrid(img, k):
    """Image undistortion by a meshgrid remap with bilinear interpolation of gathered pixels."""
    H, W = img.shape
    fx = fy = float(W)
    cx, cy = (W - 1) / 2, (H - 1) / 2
    u, v = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    x = (u - cx) / fx
    y = (v - cy) / fy
    r2 = x * x + y * y
    s = 1 + k[0] * r2 + k[1] * r2 * r2
    ud = x * s * fx + cx
    vd = y * s * fy + cy
    x0 = np.clip(np.floor(ud).astype(int), 0, W - 2)
    y0 = np.clip(np.floor(vd).astype(int), 0, H - 2)
    ax = np.clip(ud - x0, 0, 1)
    ay = np.clip(vd - y0, 0, 1)
    out = (img[y0, x0] * (1 - ax) * (1 - ay) + img[y0, x0 + 1] * ax * (1 - ay)
           + img[y0 + 1, x0] * (1 - ax) * ay + img[y0 + 1, x0 + 1] * ax * ay)
    return out.astype(np.float32)


def _image_points(n, rng, dtype=np.float32):
    return rng.uniform(0, 255, (n + 4, n + 5)).astype(dtype), rng.uniform(-1, n + 5, (3 * n, 2))


@case(_image_points)
def bilinear_sample_floor_clip(img, pts):
    """Bilinear sampling of a float32 image at clipped points, corner pixels gathered by fancy indexing."""
    H, W = img.shape
    x = np.clip(pts[:, 0], 0, W - 1)
    y = np.clip(pts[:, 1], 0, H - 1)
    x0 = np.floor(x).astype(np.int64)
    y0 = np.floor(y).astype(np.int64)
    x1 = np.minimum(x0 + 1, W - 1)
    y1 = np.minimum(y0 + 1, H - 1)
    wx = (x - x0).astype(img.dtype)
    wy = (y - y0).astype(img.dtype)
    top = img[y0, x0] * (1 - wx) + img[y0, x1] * wx
    bot = img[y1, x0] * (1 - wx) + img[y1, x1] * wx
    return top * (1 - wy) + bot * wy


@case(lambda n, rng: _image_points(n, rng, np.uint8))
def bilinear_sample_uint8_image_out_of_bounds_zero(img, pts):
    """Bilinear sampling of a uint8 image with zero outside, four corner loops accumulating in place."""
    H, W = img.shape
    x0 = np.floor(pts[:, 0]).astype(np.int32)
    y0 = np.floor(pts[:, 1]).astype(np.int32)
    fx = pts[:, 0] - x0
    fy = pts[:, 1] - y0
    out = np.zeros(pts.shape[0])
    for dy in (0, 1):
        for dx in (0, 1):
            xi = x0 + dx
            yi = y0 + dy
            valid = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
            w = (fx if dx else 1 - fx) * (fy if dy else 1 - fy)
            v = img[np.clip(yi, 0, H - 1), np.clip(xi, 0, W - 1)]
            out += np.where(valid, w * v, 0.0)
    return np.rint(out).astype(np.uint8)


@case(lambda n, rng: (rng.normal(0, 1, (n, 3)), rng.normal(0, 1, (3 * n, 3))))
def rodrigues_rotate_points(rvec, pts):
    """Rodrigues rotation matrices from rotation vectors, skew matrices filled by entries, batched matmul."""
    theta = np.linalg.norm(rvec, axis=1, keepdims=True)
    k = rvec / theta
    c = np.cos(theta)[:, None]
    s = np.sin(theta)[:, None]
    Kx = np.zeros((rvec.shape[0], 3, 3))
    Kx[:, 0, 1] = -k[:, 2]
    Kx[:, 0, 2] = k[:, 1]
    Kx[:, 1, 0] = k[:, 2]
    Kx[:, 1, 2] = -k[:, 0]
    Kx[:, 2, 0] = -k[:, 1]
    Kx[:, 2, 1] = k[:, 0]
    Rm = np.eye(3) + s * Kx + (1 - c) * (Kx @ Kx)
    P = pts.reshape(rvec.shape[0], 3, 3)
    return Rm, np.matmul(P, Rm.transpose(0, 2, 1))


@case(lambda n, rng: (rng.uniform(0, 255, (n + 3, n + 4, 3)).astype(np.uint8),))
def image_pyramid_downsample_2x(img):
    """A 2x image pyramid level from uint16 sums of strided quads, and its gray conversion."""
    H, W = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
    a = img[:H, :W].astype(np.uint16)
    down = (a[0::2, 0::2] + a[1::2, 0::2] + a[0::2, 1::2] + a[1::2, 1::2] + 2) // 4
    gray = 0.299 * down[..., 0] + 0.587 * down[..., 1] + 0.114 * down[..., 2]
    return down.astype(np.uint8), np.round(gray).astype(np.uint8)


@case(lambda n, rng: (rng.uniform(0, 64, (n + 2, n + 4)).astype(np.float32),))
def disparity_to_depth_where(disp):
    """Stereo depth from disparity by divide(out=, where=), far values zeroed through a mask."""
    f, B = 700.0, 0.12
    disp[0, :2] = 0
    depth = np.zeros_like(disp)
    np.divide(f * B, disp, out=depth, where=disp > 0.5)
    depth[depth > 50] = 0
    return depth, (depth > 0).mean()


# === medical and astronomy imaging ========================================================
def _ct(n, rng):
    return rng.integers(0, 4096, (n + 2, n + 3)).astype(np.uint16), 1.0, -1024.0


@case(_ct)
def ct_window_level_inplace(raw, slope, intercept):
    """CT window/level to 8 bits: float32 rescale, clip(out=) and scale in place, rounded to uint8."""
    hu = raw.astype(np.float32)
    hu *= slope
    hu += intercept
    center, width = 40.0, 400.0
    lo, hi = center - width / 2, center + width / 2
    np.clip(hu, lo, hi, out=hu)
    hu -= lo
    hu *= 255.0 / width
    return np.round(hu).astype(np.uint8)


@case(lambda n, rng: (rng.integers(-1024, 3000, (n + 2, n + 3)).astype(np.int16),))
def hu_to_density_lut_interp(hu):
    """Hounsfield units to density by np.interp of int16 pixels, tissue labels by np.select."""
    xp = np.array([-1024.0, -100.0, 0.0, 100.0, 1000.0, 3000.0])
    fp = np.array([0.0, 0.93, 1.0, 1.07, 1.6, 2.8])
    rho = np.interp(hu, xp, fp)
    bone = hu > 300
    soft = (hu > -100) & (hu <= 300)
    return rho, np.select([bone, soft], [2, 1], default=0).astype(np.uint8)


@case(lambda n, rng: (rng.uniform(0, 360, 4 * n), rng.uniform(-90, 90, 4 * n)))
def radec_to_cartesian_and_separation(ra, dec):
    """Sky coordinates to unit vectors by columns, separations by arccos, and back by arctan2/arcsin."""
    r = np.radians(ra)
    d = np.radians(dec)
    xyz = np.empty((ra.shape[0], 3))
    xyz[:, 0] = np.cos(d) * np.cos(r)
    xyz[:, 1] = np.cos(d) * np.sin(r)
    xyz[:, 2] = np.sin(d)
    cosang = np.clip(xyz[:-1] @ xyz[-1], -1.0, 1.0)
    sep = np.degrees(np.arccos(cosang))
    ra2 = np.degrees(np.arctan2(xyz[:, 1], xyz[:, 0])) % 360
    dec2 = np.degrees(np.arcsin(xyz[:, 2]))
    return xyz, sep, ra2, dec2


def _frames(n, rng):
    H, W = n + 3, n + 5
    dark = rng.normal(100, 3, (H, W)).astype(np.float32)
    flat = rng.normal(1.0, 0.05, (H, W)).astype(np.float32)
    sky = rng.poisson(500, (H, W)).astype(np.float32)
    return np.clip(sky * flat + dark, 0, 65535).astype(np.uint16), dark, flat


@case(_frames)
def flat_dark_correction_inplace(raw, dark, flat):
    """Dark subtraction and flat division in float32, written back into the uint16 raw frame."""
    frame = raw.astype(np.float32)
    frame -= dark
    frame /= flat / np.mean(flat)
    np.clip(frame, 0, 65535, out=frame)
    raw[...] = np.round(frame).astype(np.uint16)
    return frame


def _stars(n, rng):
    data = rng.normal(100, 5, 8 * n)
    data[::7] += rng.uniform(50, 200, data[::7].shape)
    return (data,)


@case(_stars)
def sigma_clip_nan_masked(data):
    """Iterative sigma clipping with nanmedian/nanstd of a NaN-masked copy and a mask updated by &=."""
    x = data.copy()
    mask = np.ones(x.shape, dtype=bool)
    for _ in range(3):
        vals = np.where(mask, x, np.nan)
        med = np.nanmedian(vals)
        std = np.nanstd(vals)
        mask &= np.abs(x - med) < 3 * std
    return mask, np.where(mask, x, 0.0).sum() / mask.sum()


@case(_stars)
def sigma_clip_mask_write_with_where(data):
    """Sigma clipping with the mean of a traced selection data[good].mean() inside the loop."""
    mask = np.zeros(data.shape, dtype=bool)
    for _ in range(4):
        good = ~mask
        mean = data[good].mean()
        std = np.sqrt(((data - mean) ** 2 * good).sum() / good.sum())
        mask = np.where(np.abs(data - mean) > 2.5 * std, True, mask)
    return mask, data[~mask].mean()


@case(lambda n, rng: (rng.normal(100, 5, (5, n + 2, n + 3)).astype(np.float32),))
def median_and_clipped_mean_stack(frames):
    """Median, MAD and outlier-rejected mean of a float32 frame stack."""
    med = np.median(frames, axis=0)
    mad = np.median(np.abs(frames - med), axis=0)
    bad = np.abs(frames - med) > 3 * 1.4826 * mad
    w = (~bad).astype(np.float32)
    return med, mad, (frames * w).sum(axis=0) / np.maximum(w.sum(axis=0), 1)


@case(lambda n, rng: tuple(rng.normal(100, 5, (n + 2, n + 3)).astype(np.float32) for _ in range(3)))
def median_combine_frame_stack(f1, f2, f3):
    """Median and mean combining of frames stacked into one cube."""
    cube = np.stack([f1, f2, f3])
    return np.median(cube, axis=0), np.mean(cube, axis=0), np.max(cube, axis=0), np.std(cube, axis=0)


@case(lambda n, rng: (rng.normal(10, 1, (n + 8, n + 8)),))
def aperture_photometry_nanmedian(img):
    """Aperture photometry: static circular masks from mgrid, background by nanmedian of an annulus."""
    H, W = img.shape
    yy, xx = np.mgrid[0:H, 0:W]
    cy, cx = (H - 1) / 2, (W - 1) / 2
    r = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
    ap = r <= 3.0
    ann = (r > 4.0) & (r <= 6.0)
    bkg = np.nanmedian(np.where(ann, img, np.nan))
    return img[ap].sum() - bkg * ap.sum(), bkg


@case(lambda n, rng: (rng.normal(100, 5, (n + 4, n + 4)).astype(np.float32),))
def hot_pixel_median3x3_replace(img):
    """Hot pixels replaced by the 3x3 median of an edge-padded sliding window."""
    img[2, 3] = 5000.0
    img[-2, -2] = 4000.0
    p = np.pad(img, 1, mode="edge")
    win = np.lib.stride_tricks.sliding_window_view(p, (3, 3))
    med = np.median(win.reshape(img.shape[0], img.shape[1], 9), axis=-1)
    hot = img > med + 10 * np.std(img - med)
    return np.where(hot, med, img), hot


@case(lambda n, rng: (rng.integers(0, 2000, (4, n + 2, n + 3)).astype(np.int16),))
def ct_mip_and_depth(vol):
    """Maximum and minimum intensity projections of an int16 volume, depth by argmax, float32 mean."""
    return (vol.max(axis=0), vol.argmax(axis=0), vol.min(axis=0), vol.mean(axis=0, dtype=np.float32),
            vol.max(axis=1), vol[:, :, ::-1].max(axis=2))


@case(lambda n, rng: (rng.normal(100, 3, (n + 4, n + 5)).astype(np.float32),))
def cosmic_ray_laplacian_edge_pad(img):
    """Cosmic rays by a Laplacian of the edge-padded frame, replaced through a mask by neighbour medians."""
    img[2, 2] += 800
    p = np.pad(img, 1, mode="edge")
    lap = 4 * p[1:-1, 1:-1] - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:]
    cr = lap / (2 * np.sqrt(np.maximum(img, 0))) > 5
    cleaned = img.copy()
    p_med = np.median(np.stack([p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]]), axis=0)
    cleaned[cr] = p_med[cr]
    return cr, cleaned


@case(lambda n, rng: (np.sort(rng.uniform(0, 30, 10 * n)), rng.normal(0, 0.01, 10 * n)))
def phase_fold_and_bin(t, flux):
    """A light curve phase-folded with %, sorted by phase, and binned with weighted uniform histograms."""
    P, t0 = 2.345, 0.3
    flux += 0.05 * np.sin(2 * np.pi * (t - t0) / P)
    phase = ((t - t0) / P) % 1.0
    order = np.argsort(phase, kind="stable")
    sums, edges = np.histogram(phase, bins=10, range=(0, 1), weights=flux)
    cnts, _ = np.histogram(phase, bins=10, range=(0, 1))
    binned = np.divide(sums, cnts, out=np.full(10, np.nan), where=cnts > 0)
    return phase, flux[order], binned, edges


def _differential_photometry(n, rng):
    phase = rng.uniform(0.02, 0.98, 4 * n)
    target = rng.uniform(1e7, 1e8, 4 * n).astype(np.float32)
    small = rng.normal(0, 20, 4 * n).astype(np.float32)
    x = np.stack([phase, phase + 1e-7], 1).ravel()
    w = np.stack([target, -target + small], 1).ravel()
    return x, w


@case(_differential_photometry)
def differential_flux_histogram_explicit_edges(phase, flux):
    """Target minus comparison counts binned at explicit phase edges (float32 weights that cancel);
    pins session 20's np.histogram with weights and explicit edges."""
    edges = np.array([0.0, 0.1, 0.25, 0.5, 0.75, 1.0])
    h32, _ = np.histogram(phase, bins=edges, weights=flux)
    h64, _ = np.histogram(phase, bins=edges, weights=flux.astype(np.float64))
    return h32, h64


def test_corpus_size():
    assert len(CORPUS) >= 2 * 150


@pytest.mark.parametrize("f,make,n,optimize", CORPUS)
def test_accept3_program_matches_numpy(f, make, n, optimize):
    check_against_numpy(f, *make(n, np.random.default_rng(100 + n)), optimize=optimize)
