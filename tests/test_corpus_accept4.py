"""A sixth corpus of realistic NumPy programs: those written by acceptance campaign D of session 21.

Same pattern as tests/test_corpus_accept3.py: each program is written as users write NumPy, with an
input maker ``make(n, rng)``, and runs differentially against NumPy at two sizes. The domains:
audio and DSP (frames, windows, biquads, envelopes, mu-law, Goertzel), finance and backtesting
(drawdowns, EMA/MACD, RSI, order books, VaR, momentum), genomics on integer-coded sequences
(k-mers, alignments by dynamic programming, PWM scans, coverage, genotypes), geospatial rasters
(slope, hillshade, NDVI, flow directions, zonal statistics), weather and climate (anomalies,
degree days, dew points, trends), image processing by hand (blurs, edges, morphology, histogram
equalization, Otsu), graph algorithms on dense adjacency matrices (BFS, Floyd-Warshall, PageRank,
Dijkstra, Prim), recommender systems (ALS, top-k, NDCG, factorization by SGD), particle
simulations (leapfrog, Verlet, periodic boxes, PIC deposits, SPH), and more constructs across them.
Loops are short (20 steps at most), so no program takes much over a second to compile.
One pins a fix of a bug the campaign found (session 21); its docstring names it.

Every test here is marked slow (one XLA compile per program and size): run it with
``pytest -m slow tests/test_corpus_accept4.py``.
"""

import numpy as np
import pytest
from marks import registrar
from numpy.lib.stride_tricks import sliding_window_view

from elena_jax.testing import check_against_numpy

pytestmark = pytest.mark.slow

SIZES = (3, 5)
CORPUS = []
case = registrar(CORPUS, SIZES)


# === audio and DSP ========================================================================
def _mono32(n, rng):
    t = np.arange(16 * n) / 8000.0
    return (0.6 * np.sin(2 * np.pi * 440 * t) + 0.1 * rng.normal(size=t.size)).astype(np.float32),


@case(_mono32)
def frame_window_rfft_mag(x, frame=8, hop=4):
    """Frames by sliding_window_view with a hop, a Hann window, rfft magnitudes in dB."""
    frames = sliding_window_view(x, frame)[::hop]
    win = np.hanning(frame).astype(np.float32)
    spec = np.fft.rfft(frames * win, axis=-1)
    mag = np.abs(spec)
    db = 20 * np.log10(np.maximum(mag, 1e-6))
    return frames * win, mag.astype(np.float32), db


@case(_mono32)
def overlap_add_resynthesis(x, frame=8, hop=4):
    """Windowed frames overlap-added back into an output buffer through slices, with a norm buffer."""
    win = np.hanning(frame)
    nfr = 1 + (x.shape[0] - frame) // hop
    out = np.zeros(x.shape[0], dtype=np.float64)
    norm = np.zeros_like(out)
    for i in range(nfr):
        s = i * hop
        out[s:s + frame] += x[s:s + frame] * win
        norm[s:s + frame] += win ** 2
    np.divide(out, norm, out=out, where=norm > 1e-8)
    return out


@case(_mono32)
def pre_emphasis_in_place(x, coef=0.97):
    """Pre-emphasis written back into the signal: x[1:] -= coef * x[:-1] (overlapping operands)."""
    x[1:] -= coef * x[:-1]
    return x.max(), x.dtype.itemsize


@case(_mono32)
def de_emphasis_loop(x, coef=0.97):
    """De-emphasis as a recursive loop over a float32 signal, first 20 samples."""
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, min(20, x.shape[0])):
        y[i] = x[i] + coef * y[i - 1]
    y[20:] = x[20:]
    return y


def _biquad_coefs(fc=1000.0, fs=8000.0, q=0.707):
    w0 = 2 * np.pi * fc / fs
    alpha = np.sin(w0) / (2 * q)
    b = np.array([(1 - np.cos(w0)) / 2, 1 - np.cos(w0), (1 - np.cos(w0)) / 2])
    a = np.array([1 + alpha, -2 * np.cos(w0), 1 - alpha])
    return b / a[0], a / a[0]


@case(lambda n, rng: (rng.normal(size=2 * n + 6),) + _biquad_coefs())
def biquad_direct_form_1(x, b, a):
    """A lowpass biquad by hand, direct form I with scalar state variables."""
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for i in range(x.shape[0]):
        y[i] = b[0] * x[i] + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2
        x2, x1 = x1, x[i]
        y2, y1 = y1, y[i]
    return y


@case(lambda n, rng: (rng.normal(size=(3, 2 * n + 4)).astype(np.float32),) + _biquad_coefs())
def biquad_df2t_multichannel(x, b, a):
    """Transposed direct form II over channels at once, state arrays updated in place per sample."""
    C, N = x.shape
    z = np.zeros((C, 2), dtype=x.dtype)
    b = b.astype(x.dtype)
    a = a.astype(x.dtype)
    y = np.empty_like(x)
    for i in range(N):
        xi = x[:, i]
        yi = b[0] * xi + z[:, 0]
        z[:, 0] = b[1] * xi - a[1] * yi + z[:, 1]
        z[:, 1] = b[2] * xi - a[2] * yi
        y[:, i] = yi
    return y, z


@case(_mono32)
def envelope_follower_attack_release(x, att=0.3, rel=0.05):
    """Peak envelope follower with different attack and release coefficients chosen by np.where."""
    env = np.zeros(min(20, x.shape[0]), dtype=np.float32)
    e = np.float32(0.0)
    for i in range(env.shape[0]):
        r = np.abs(x[i])
        c = np.where(r > e, np.float32(att), np.float32(rel))
        e = e + c * (r - e)
        env[i] = e
    return env


@case(_mono32)
def zero_crossing_rate_frames(x, frame=8, hop=4):
    """Zero crossings per frame from the sign bit, count_nonzero along axis 1, and a rate."""
    frames = sliding_window_view(x, frame)[::hop]
    s = np.signbit(frames)
    zc = np.count_nonzero(s[:, 1:] != s[:, :-1], axis=1)
    rate = zc / (frame - 1)
    return zc, rate


@case(_mono32)
def rms_db_per_frame(x, frame=8, hop=4):
    """RMS in dB per frame, float32 all along, with keepdims normalisation of each frame."""
    frames = sliding_window_view(x, frame)[::hop]
    rms = np.sqrt(np.mean(frames ** 2, axis=1, keepdims=True))
    normed = frames / (rms + np.float32(1e-8))
    db = 20 * np.log10(rms[:, 0] + 1e-10)
    return rms, normed, db


@case(_mono32)
def mu_law_encode_decode(x, mu=255):
    """Mu-law companding to uint8 codes and back, float32."""
    x = np.clip(x, -1, 1)
    y = np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu)
    codes = ((y + 1) / 2 * mu + 0.5).astype(np.uint8)
    yq = 2 * (codes.astype(np.float32) / mu) - 1
    xr = np.sign(yq) * (np.power(1 + mu, np.abs(yq)) - 1) / mu
    return codes, xr


def _pcm16(n, rng):
    return (rng.normal(0, 12000, size=(2, 8 * n))).clip(-32768, 32767).astype(np.int16),


@case(_pcm16)
def pcm16_gain_clip_roundtrip(pcm, gain=1.8):
    """int16 PCM to float, a gain, np.clip(out=) in place, back to int16 by rounding."""
    f = pcm.astype(np.float32) / 32768.0
    f *= gain
    np.clip(f, -1.0, 1.0 - 1.0 / 32768, out=f)
    back = np.round(f * 32768).astype(np.int16)
    clipped = np.count_nonzero(np.abs(f) >= 1.0 - 1.0 / 32768, axis=1)
    return back, clipped


@case(lambda n, rng: (rng.normal(size=(2, 8 * n)).astype(np.float32) + 0.3,))
def stereo_dc_removal_mid_side(x):
    """DC removed in place per channel, then mid/side written back into the two rows."""
    x -= x.mean(axis=1, keepdims=True)
    L, R = x[0].copy(), x[1].copy()
    x[0] = (L + R) / 2
    x[1] = (L - R) / 2
    return x.std(axis=1)


@case(_mono32)
def autocorrelation_pitch(x, fs=8000.0):
    """Autocorrelation by np.correlate, normalised, strongest lag in a range, pitch estimate."""
    x = x - x.mean()
    ac = np.correlate(x, x, mode="full")[x.shape[0] - 1:]
    ac = ac / ac[0]
    lo, hi = 2, min(20, ac.shape[0])
    lag = lo + np.argmax(ac[lo:hi])
    return ac, lag, fs / lag


@case(_mono32)
def spectral_centroid_rolloff(x, frame=8, hop=4, fs=8000.0):
    """Spectral centroid and 85% rolloff frequency per frame via rfftfreq, cumsum and argmax."""
    frames = sliding_window_view(x, frame)[::hop] * np.hamming(frame)
    mag = np.abs(np.fft.rfft(frames, axis=1))
    freqs = np.fft.rfftfreq(frame, d=1.0 / fs)
    centroid = (mag * freqs).sum(axis=1) / (mag.sum(axis=1) + 1e-12)
    c = np.cumsum(mag, axis=1)
    roll = freqs[np.argmax(c >= 0.85 * c[:, -1:], axis=1)]
    return centroid, roll


@case(_mono32)
def fade_in_out_ramp(x):
    """Linear fades through views multiplied in place by float64 ramps (the float32 stays)."""
    k = x.shape[0] // 4
    x[:k] *= np.linspace(0.0, 1.0, k)
    x[-k:] *= np.linspace(1.0, 0.0, k)
    return x


@case(_mono32)
def moving_average_cumsum(x, w=4):
    """Moving average via a zero-prefixed cumsum (np.insert), float32."""
    c = np.cumsum(np.insert(x, 0, 0))
    ma = (c[w:] - c[:-w]) / w
    return ma


@case(_mono32)
def decimate_fir(x):
    """Lowpass FIR by np.convolve 'same' then decimation by two; the taps made inside."""
    taps = np.sinc(np.arange(-3, 4) / 2) * np.hamming(7)
    taps /= taps.sum()
    y = np.convolve(x, taps, mode="same")
    return y[::2], taps


@case(_mono32)
def peak_normalise_int16(x):
    """Peak normalisation to int16 full scale, with truncation, and the float residual."""
    peak = np.abs(x).max()
    y = (x / peak * 32767).astype(np.int16)
    return y, x / peak - y / 32767


@case(lambda n, rng: (rng.normal(size=(n + 2, 9)) + 1j * rng.normal(size=(n + 2, 9)),))
def phase_vocoder_advance(stft):
    """Phase differences between STFT frames unwrapped along time, complex128 magnitude/phase."""
    mag = np.abs(stft)
    ph = np.angle(stft)
    dphi = np.diff(ph, axis=0)
    expected = 2 * np.pi * np.arange(9) * 4 / 16
    dev = dphi - expected
    dev = np.mod(dev + np.pi, 2 * np.pi) - np.pi
    acc = np.cumsum(np.vstack([ph[:1], expected + dev]), axis=0)
    out = mag * np.exp(1j * acc)
    return np.unwrap(ph, axis=0), out.astype(np.complex64)


@case(_mono32)
def goertzel_bins(x, fs=8000.0):
    """Goertzel power at three frequencies, a loop over the first 20 samples, vector state."""
    f = np.array([440.0, 880.0, 1000.0])
    k = np.round(f / fs * 20)
    w = 2 * np.pi * k / 20
    coeff = 2 * np.cos(w)
    s1 = np.zeros(3)
    s2 = np.zeros(3)
    for i in range(20):
        s = x[i] + coeff * s1 - s2
        s2 = s1
        s1 = s
    power = s1 ** 2 + s2 ** 2 - coeff * s1 * s2
    return power


# === finance and backtesting ==============================================================
def _prices(n, rng, assets=3):
    r = rng.normal(0.0005, 0.02, size=(4 * n + 4, assets))
    return 100 * np.exp(np.cumsum(r, axis=0)),


@case(_prices)
def returns_and_wealth(p):
    """Simple and log returns, cumulative wealth by cumprod, total return per asset."""
    simple = p[1:] / p[:-1] - 1
    logr = np.diff(np.log(p), axis=0)
    wealth = np.cumprod(1 + simple, axis=0)
    return simple, logr, wealth, wealth[-1] - 1


@case(_prices)
def max_drawdown_running_peak(p):
    """Running peak by np.maximum.accumulate, drawdowns, max drawdown and where it bottoms."""
    peak = np.maximum.accumulate(p, axis=0)
    dd = p / peak - 1.0
    mdd = dd.min(axis=0)
    trough = dd.argmin(axis=0)
    return dd, mdd, trough


@case(_prices)
def rolling_volatility_window(p, w=5):
    """Annualised rolling volatility of log returns over windows by sliding_window_view, ddof=1."""
    r = np.log(p[1:] / p[:-1])
    win = sliding_window_view(r, w, axis=0)
    vol = win.std(axis=-1, ddof=1) * np.sqrt(252)
    out = np.full(r.shape, np.nan)
    out[w - 1:] = vol
    return out


def _signals(n, rng):
    T, A = 3 * n + 2, 3
    return (100 + rng.normal(0, 1, (T, A)).cumsum(0)).round(2), rng.integers(-1, 2, (T, A)).astype(np.int64)


@case(_signals)
def position_updates_in_place(px, sig, cash0=10000.0, size=10):
    """Target positions from signals; trades, cash and holdings updated in place day by day."""
    T, A = px.shape
    pos = np.zeros(A, dtype=np.int64)
    cash = np.array(cash0)
    equity = np.empty(T)
    for t in range(T):
        target = sig[t] * size
        trade = target - pos
        cash -= (trade * px[t]).sum() + 0.001 * np.abs(trade * px[t]).sum()
        pos += trade
        equity[t] = cash + (pos * px[t]).sum()
    return pos, cash, equity


@case(lambda n, rng: (100 + rng.normal(0, 1, 6 * n).cumsum().astype(np.float32),))
def ema_and_macd(x):
    """Exponential moving averages by a loop over 20 samples, float32, and a MACD line."""
    def ema(v, span):
        a = 2.0 / (span + 1)
        out = np.empty_like(v)
        out[0] = v[0]
        for t in range(1, min(20, v.shape[0])):
            out[t] = a * v[t] + (1 - a) * out[t - 1]
        return out[:20]
    fast = ema(x, 3)
    slow = ema(x, 8)
    return fast, slow, fast - slow


def _book(n, rng):
    levels = 4 + n
    bid_px = 100 - np.cumsum(rng.integers(1, 4, levels)) * 0.01
    ask_px = 100 + np.cumsum(rng.integers(1, 4, levels)) * 0.01
    return bid_px, rng.integers(1, 50, levels) * 100, ask_px, rng.integers(1, 50, levels) * 100


@case(_book)
def order_book_sweep_vwap(bid_px, bid_sz, ask_px, ask_sz, qty=3000):
    """A market buy sweeping the ask side: cumulative depth, searchsorted level, VWAP, mid and spread."""
    depth = np.cumsum(ask_sz)
    k = np.searchsorted(depth, qty)
    filled = np.minimum(ask_sz, np.maximum(qty - (depth - ask_sz), 0))
    vwap = (filled * ask_px).sum() / filled.sum()
    mid = (bid_px[0] + ask_px[0]) / 2
    spread_bps = (ask_px[0] - bid_px[0]) / mid * 1e4
    imbalance = (bid_sz[:3].sum() - ask_sz[:3].sum()) / (bid_sz[:3].sum() + ask_sz[:3].sum())
    return k, filled, vwap, spread_bps, imbalance


@case(lambda n, rng: (rng.random(n + 3), rng.normal(0.001, 0.01, (4 * n, n + 3))))
def rebalance_drift(w, r, band=0.02):
    """Weights drift with returns, renormalised in place; a rebalance where drift exceeds the band."""
    w /= w.sum()
    target = w.copy()
    turnover = 0.0
    for t in range(r.shape[0]):
        w *= 1 + r[t]
        w /= w.sum()
        if_drift = np.abs(w - target).max() > band
        turnover = turnover + np.where(if_drift, np.abs(w - target).sum(), 0.0)
        w[...] = np.where(if_drift, target, w)
    return w, turnover


@case(lambda n, rng: (100 + rng.normal(0, 1, 8 * n).cumsum(),))
def bollinger_signals(p, w=5, k=2.0):
    """Bollinger bands from cumsums of p and p**2, z-scores, and +1/-1/0 signals by np.select."""
    c1 = np.cumsum(np.concatenate([[0.0], p]))
    c2 = np.cumsum(np.concatenate([[0.0], p * p]))
    m = (c1[w:] - c1[:-w]) / w
    v = (c2[w:] - c2[:-w]) / w - m * m
    sd = np.sqrt(np.maximum(v, 0))
    z = (p[w - 1:] - m) / sd
    sig = np.select([z > k, z < -k], [-1, 1], 0)
    return m, m + k * sd, m - k * sd, sig


@case(lambda n, rng: (100 + rng.normal(0, 1, 6 * n).cumsum(),))
def rsi_wilder(p, period=5):
    """RSI with Wilder smoothing: gains and losses by np.clip, a seeded loop."""
    d = np.diff(p)
    gain = np.clip(d, 0, None)
    loss = np.clip(-d, 0, None)
    ag = gain[:period].mean()
    al = loss[:period].mean()
    rsi = np.full(d.shape[0], np.nan)
    for t in range(period, min(d.shape[0], period + 15)):
        ag = (ag * (period - 1) + gain[t]) / period
        al = (al * (period - 1) + loss[t]) / period
        rsi[t] = 100 - 100 / (1 + ag / al)
    return rsi


@case(lambda n, rng: (rng.normal(0.0005, 0.01, (10 * n, 4)),))
def sharpe_sortino_per_asset(r, rf=0.0001):
    """Annualised Sharpe and Sortino ratios per column, downside deviation via a masked square."""
    ex = r - rf
    sharpe = ex.mean(axis=0) / ex.std(axis=0, ddof=1) * np.sqrt(252)
    downside = np.where(ex < 0, ex, 0.0)
    dd = np.sqrt((downside ** 2).sum(axis=0) / (r.shape[0] - 1))
    sortino = ex.mean(axis=0) / dd * np.sqrt(252)
    return sharpe, sortino


@case(lambda n, rng: (rng.normal(0.0005, 0.01, (10 * n, 4)),))
def min_variance_portfolio(r):
    """Minimum variance weights from np.cov and np.linalg.solve, and the portfolio's volatility."""
    S = np.cov(r, rowvar=False)
    ones = np.ones(S.shape[0])
    x = np.linalg.solve(S, ones)
    w = x / x.sum()
    vol = np.sqrt(w @ S @ w)
    return w, vol


@case(lambda n, rng: (100 + rng.normal(0, 1, (3 * n, 4)).cumsum(0), 100 + rng.normal(0, 0.5, 4)))
def trailing_stop_loss(px, entry, stop=0.03):
    """Trailing stops: a running high per asset, positions zeroed by a boolean mask in place."""
    T, A = px.shape
    pos = np.ones(A)
    high = entry.copy()
    exits = np.full(A, -1)
    for t in range(T):
        np.maximum(high, px[t], out=high)
        hit = (px[t] < high * (1 - stop)) & (pos > 0)
        exits[hit] = t
        pos[hit] = 0.0
    return pos, high, exits


@case(lambda n, rng: (rng.uniform(10, 200, 5 * n), rng.integers(1, 500, 5 * n)))
def tick_rounding_cents(px, qty, tick=0.05):
    """Prices rounded to the tick; notional in integer cents by rint, fees by floor division."""
    rp = np.round(px / tick) * tick
    cents = np.rint(rp * 100).astype(np.int64)
    notional = cents * qty
    fee = notional * 3 // 10000
    fee = np.maximum(fee, 100)
    return rp, cents, notional, fee, fee.sum()


@case(lambda n, rng: (rng.normal(0, 1, (n + 2, 3)), rng.normal(0, 0.01, (4 * n, 3)),
                      rng.normal(0, 0.005, (4 * n, n + 2))))
def factor_pnl_attribution_einsum(beta, fret, resid):
    """Factor returns times exposures by einsum; attribution per factor and the residual share."""
    factor_part = np.einsum("ak,tk->ta", beta, fret)
    total = factor_part + resid
    attrib = np.einsum("ak,tk->k", beta, fret) / beta.shape[0]
    share = np.abs(resid).sum(axis=0) / np.abs(total).sum(axis=0)
    return total, attrib, share


@case(lambda n, rng: (rng.standard_t(4, (20 * n, 3)) * 0.01,))
def var_expected_shortfall(r, alpha=5.0):
    """Historical VaR by np.percentile per column and expected shortfall as a masked mean."""
    var = -np.percentile(r, alpha, axis=0)
    tail = r <= -var
    es = -(r * tail).sum(axis=0) / tail.sum(axis=0)
    q = np.quantile(r, [0.01, 0.5, 0.99], axis=0, method="linear")
    return var, es, q


@case(_prices)
def drawdown_duration_loop(p):
    """Longest drawdown duration per asset by a loop with np.where counters (int64)."""
    T, A = p.shape
    peak = p[0].copy()
    cur = np.zeros(A, dtype=np.int64)
    longest = np.zeros(A, dtype=np.int64)
    for t in range(1, min(T, 20)):
        under = p[t] < peak
        cur = np.where(under, cur + 1, 0)
        longest = np.maximum(longest, cur)
        peak = np.where(under, peak, p[t])
    return longest, peak


@case(lambda n, rng: (rng.normal(0.001, 0.03, (3 * n, 2 * n + 4)),))
def cross_sectional_momentum(r, k=2):
    """Cross-sectional momentum: lookback sums ranked by argsort, top k long and bottom k short, equal weights."""
    mom = r[:-1].sum(axis=0)
    order = np.argsort(mom)
    w = np.zeros_like(mom)
    w[order[-k:]] = 1.0 / k
    w[order[:k]] = -1.0 / k
    ranks = np.empty_like(order)
    ranks[order] = np.arange(order.shape[0])
    return w, ranks, (w * r[-1]).sum()


@case(lambda n, rng: (rng.integers(0, 20, 8 * n), rng.integers(-50, 50, 8 * n)))
def limit_book_level_updates(level, delta):
    """A depth ladder updated by signed size changes with np.add.at, clipped at zero, best level found."""
    ladder = np.zeros(20, dtype=np.int64)
    np.add.at(ladder, level, delta)
    np.clip(ladder, 0, None, out=ladder)
    best = np.argmax(ladder > 0)
    cum = np.cumsum(ladder[::-1])[::-1]
    return ladder, best, cum


# === genomics on integer-coded sequences (A=0, C=1, G=2, T=3) ============================
def _seq(n, rng, dtype=np.int8):
    return rng.integers(0, 4, 10 * n).astype(dtype),


@case(_seq)
def gc_content_windows(seq, w=6):
    """GC fraction over sliding windows from a cumsum of a boolean mask, and windows above 60%."""
    gc = ((seq == 1) | (seq == 2)).astype(np.int32)
    c = np.concatenate([np.zeros(1, np.int32), np.cumsum(gc)])
    counts = c[w:] - c[:-w]
    frac = counts / w
    return counts, frac, (frac > 0.6).sum()


@case(lambda n, rng: _seq(n, rng, np.uint8))
def kmer_spectrum_uint8_codes(seq, k=3):
    """k-mer codes kept in uint8 (4**3 = 64 fits), so bincount with minlength 256 has a static length."""
    win = sliding_window_view(seq, k)
    codes = (win[:, 0] << 4) | (win[:, 1] << 2) | win[:, 2]
    counts = np.bincount(codes, minlength=256)[:64]
    top = np.argsort(counts, kind="stable")[::-1][:5]
    return codes, counts, top


@case(_seq)
def reverse_complement_palindromes(seq):
    """Reverse complement by 3 - seq[::-1] (int8), and positions where a 6-mer equals its revcomp."""
    rc = 3 - seq[::-1]
    win = sliding_window_view(seq, 6)
    rcw = 3 - win[:, ::-1]
    pal = (win == rcw).all(axis=1)
    return rc, rc.dtype.itemsize, pal


def _pair(n, rng):
    return rng.integers(0, 4, n + 4).astype(np.int8), rng.integers(0, 4, n + 3).astype(np.int8)


@case(_pair)
def smith_waterman_fill(a, b, match=2, mismatch=-1, gap=-2):
    """Smith-Waterman local alignment: the H table filled cell by cell in place, best score and its cell."""
    m, n = a.shape[0], b.shape[0]
    H = np.zeros((m + 1, n + 1), dtype=np.int32)
    S = np.where(a[:, None] == b[None, :], match, mismatch)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            H[i, j] = np.maximum(np.maximum(0, H[i - 1, j - 1] + S[i - 1, j - 1]),
                                 np.maximum(H[i - 1, j] + gap, H[i, j - 1] + gap))
    best = H.argmax()
    return H, H.max(), np.unravel_index(best, H.shape)


@case(lambda n, rng: (rng.integers(0, 4, n + 2).astype(np.int8), rng.integers(0, 4, n + 1).astype(np.int8)))
def needleman_wunsch_rows(a, b, match=1, mismatch=-1, gap=-1):
    """Needleman-Wunsch by rows: diagonal/up moves vectorised, the left move by a short loop, pointers kept."""
    m, n = a.shape[0], b.shape[0]
    F = np.zeros((m + 1, n + 1), dtype=np.int64)
    F[0, :] = gap * np.arange(n + 1)
    F[:, 0] = gap * np.arange(m + 1)
    P = np.zeros((m + 1, n + 1), dtype=np.uint8)
    for i in range(1, m + 1):
        s = np.where(a[i - 1] == b, match, mismatch)
        cand = np.stack([F[i - 1, :-1] + s, F[i - 1, 1:] + gap])
        F[i, 1:] = cand.max(axis=0)
        P[i, 1:] = cand.argmax(axis=0)
        for j in range(1, n + 1):
            left = F[i, j - 1] + gap
            P[i, j] = np.where(left > F[i, j], 2, P[i, j])
            F[i, j] = np.maximum(F[i, j], left)
    return F, P, F[-1, -1]


@case(lambda n, rng: (rng.integers(0, 4, 10 * n).astype(np.int64), rng.dirichlet(np.ones(4), 6)))
def pwm_log_odds_scan(seq, pfm):
    """A position weight matrix of log-odds, scored over every window by fancy indexing, best hit and strand."""
    pwm = np.log2((pfm + 0.01) / 0.25)
    w = pwm.shape[0]
    win = sliding_window_view(seq, w)
    fwd = pwm[np.arange(w), win].sum(axis=1)
    rc_pwm = pwm[::-1, ::-1]
    rev = rc_pwm[np.arange(w), win].sum(axis=1)
    best = np.maximum(fwd, rev)
    return fwd, rev, best.argmax(), np.where(fwd >= rev, 1, -1)


@case(lambda n, rng: (rng.integers(0, 4, (n + 2, 12)).astype(np.int8),))
def pairwise_hamming(reads):
    """All-pairs Hamming distances of equal-length reads by broadcasting, and the nearest other read."""
    d = (reads[:, None, :] != reads[None, :, :]).sum(axis=-1)
    d2 = d.astype(np.float64)
    np.fill_diagonal(d2, np.inf)
    return d, d2.argmin(axis=1)


@case(lambda n, rng: (rng.integers(0, 4, 3 * (3 * n + 1)).astype(np.int64),))
def codon_translation_lookup(seq):
    """Codons from three strided views, a 64-entry table lookup, stop codons found by a mask."""
    table = np.arange(64) % 21
    table[[48, 50, 56]] = 20  # TAA, TAG, TGA as stop
    codons = seq[0::3] * 16 + seq[1::3] * 4 + seq[2::3]
    aa = table[codons]
    stop = aa == 20
    first_stop = np.where(stop.any(), stop.argmax(), -1)
    return aa, first_stop


@case(lambda n, rng: (rng.integers(35, 75, (n + 2, 15)).astype(np.uint8),))
def phred_quality_trim(q, thresh=20):
    """Phred+33 qualities: uint8 minus 33, per-read mean error rate, 3' trim point by a reversed cumsum."""
    phred = q - 33
    err = 10.0 ** (-phred / 10)
    mean_q = phred.mean(axis=1)
    bad = phred < thresh
    good_from_end = np.cumsum(~bad[:, ::-1], axis=1)
    trim = q.shape[1] - np.argmax(good_from_end > 0, axis=1)
    return phred, err.mean(axis=1), mean_q, trim


@case(lambda n, rng: (rng.integers(0, 30, 4 * n), rng.integers(3, 10, 4 * n)))
def read_coverage_add_at(start, length, L=40):
    """Coverage from read intervals: +1/-1 at starts and ends by np.add.at, cumsum, mean depth."""
    delta = np.zeros(L + 1, dtype=np.int32)
    np.add.at(delta, start, 1)
    np.add.at(delta, np.minimum(start + length, L), -1)
    cov = np.cumsum(delta[:-1])
    return cov, cov.mean(), (cov >= 3).mean()


@case(lambda n, rng: (rng.integers(0, 4, (3 * n, 8)).astype(np.int64),))
def pfm_entropy_consensus(aln):
    """Position frequency matrix by np.add.at over (position, base), information content, consensus."""
    N, L = aln.shape
    counts = np.zeros((L, 4), dtype=np.int64)
    pos = np.broadcast_to(np.arange(L), aln.shape)
    np.add.at(counts, (pos, aln), 1)
    freq = counts / N
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(freq > 0, freq * np.log2(freq), 0.0).sum(axis=1)
    ic = 2 - h
    return counts, ic, counts.argmax(axis=1)


@case(_seq)
def cpg_observed_expected(seq, w=10):
    """CpG observed/expected per window: dinucleotide mask, C and G counts from cumsums, guarded division."""
    cg = ((seq[:-1] == 1) & (seq[1:] == 2)).astype(np.int64)
    c = (seq == 1).astype(np.int64)
    g = (seq == 2).astype(np.int64)
    def wsum(v):
        cs = np.cumsum(v)
        return cs[w - 1:] - np.concatenate([[0], cs[:-w]])
    obs = wsum(cg)
    exp = wsum(c)[:obs.shape[0]] * wsum(g)[:obs.shape[0]] / w
    ratio = np.divide(obs, exp, out=np.zeros(obs.shape), where=exp > 0)
    return obs, ratio


@case(_pair)
def edit_distance_two_rows(a, b):
    """Levenshtein distance keeping two rows, written in place through slices and np.minimum."""
    m, n = a.shape[0], b.shape[0]
    prev = np.arange(n + 1)
    cur = np.zeros(n + 1, dtype=prev.dtype)
    for i in range(1, m + 1):
        cur[0] = i
        cost = (a[i - 1] != b).astype(prev.dtype)
        cur[1:] = np.minimum(prev[1:] + 1, prev[:-1] + cost)
        for j in range(1, n + 1):
            cur[j] = np.minimum(cur[j], cur[j - 1] + 1)
        prev[:] = cur
    return prev[-1], prev


@case(_seq)
def one_hot_eye_lookup(seq):
    """One-hot encoding by indexing np.eye(4, dtype=uint8), channels-first transpose, base composition."""
    oh = np.eye(4, dtype=np.uint8)[seq]
    chw = oh.T
    comp = oh.sum(axis=0)
    return chw, comp, comp.dtype.itemsize


@case(_seq)
def homopolymer_runs(seq):
    """Run starts by diff != 0, run ids by cumsum, the run length at every position by np.add.at counts."""
    change = np.concatenate([[True], seq[1:] != seq[:-1]])
    run_id = np.cumsum(change) - 1
    run_len = np.zeros(seq.shape[0], dtype=np.int64)
    np.add.at(run_len, run_id, 1)
    per_pos = run_len[run_id]
    return run_id, per_pos, per_pos.max()


def _genotypes(n, rng):
    g = rng.integers(0, 3, (4 * n, n + 3)).astype(np.int8)
    g[rng.random(g.shape) < 0.1] = -1
    return g,


@case(_genotypes)
def allele_freq_hwe_missing(G):
    """Allele frequencies with -1 missing, HWE expected heterozygosity, missing genotypes imputed in place."""
    called = G >= 0
    n_called = called.sum(axis=0)
    alt = np.where(called, G, 0).sum(axis=0)
    p = alt / (2 * n_called)
    het_obs = (G == 1).sum(axis=0) / n_called
    het_exp = 2 * p * (1 - p)
    F = 1 - het_obs / het_exp
    G[~called] = 0
    Gf = G.astype(np.float64)
    Gf[~called] = np.broadcast_to(2 * p, G.shape)[~called]
    return p, F, Gf


@case(lambda n, rng: (rng.integers(0, 4, (2 * n, 10)).astype(np.int64), rng.integers(0, 4, 10).astype(np.int64)))
def mismatch_profile(reads, ref):
    """Mismatches per position against a reference, substitution matrix by bincount of ref*4+read codes."""
    mm = reads != ref
    per_pos = mm.sum(axis=0)
    codes = (ref * 4 + reads).ravel()
    sub, _ = np.histogram(codes, bins=16, range=(0, 16))
    return per_pos, sub.reshape(4, 4), mm.mean(axis=1)


# === geospatial rasters ===================================================================
def _dem(n, rng, dtype=np.float64):
    y, x = np.mgrid[0:n + 4, 0:n + 5]
    z = 100 + 5 * np.sin(x / 2.0) + 3 * np.cos(y / 3.0) + rng.normal(0, 0.5, x.shape)
    return z.astype(dtype),


@case(_dem)
def slope_aspect_gradient(z, dx=30.0, dy=30.0):
    """Slope and aspect in degrees from np.gradient with spacings, arctan2 and a % 360 wrap."""
    gy, gx = np.gradient(z, dy, dx)
    slope = np.degrees(np.arctan(np.hypot(gx, gy)))
    aspect = np.degrees(np.arctan2(-gx, gy)) % 360
    return gx, gy, slope, aspect


@case(_dem)
def hillshade_by_hand(z, az=315.0, alt=45.0, cell=30.0):
    """Hillshade from Horn's 3x3 finite differences on shifted views of an edge-padded DEM, to uint8."""
    p = np.pad(z, 1, mode="edge")
    dzdx = ((p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])) / (8 * cell)
    dzdy = ((p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])) / (8 * cell)
    slope = np.arctan(np.sqrt(dzdx ** 2 + dzdy ** 2))
    aspect = np.arctan2(dzdy, -dzdx)
    zen = np.radians(90 - alt)
    azr = np.radians(360 - az + 90)
    hs = np.cos(zen) * np.cos(slope) + np.sin(zen) * np.sin(slope) * np.cos(azr - aspect)
    return dzdx, dzdy, np.clip(hs * 255, 0, 255).astype(np.uint8)


def _bands(n, rng):
    shape = (n + 3, n + 4)
    red = rng.integers(0, 4000, shape).astype(np.uint16)
    nir = rng.integers(0, 6000, shape).astype(np.uint16)
    red[0, :2] = 0
    nir[0, :2] = 0
    return red, nir, rng.random(shape) < 0.15


@case(_bands)
def ndvi_masked(red, nir, cloud, nodata=-9999.0):
    """NDVI from uint16 bands (subtraction done in float), zero-sum pixels and clouds set to nodata."""
    r = red.astype(np.float32)
    n_ = nir.astype(np.float32)
    denom = n_ + r
    ndvi = np.full(red.shape, nodata, dtype=np.float32)
    np.divide(n_ - r, denom, out=ndvi, where=denom > 0)
    ndvi[cloud] = nodata
    valid = ndvi != nodata
    mean = ndvi[valid].mean()
    return ndvi, mean, (ndvi > 0.3).sum()


@case(_bands)
def ndvi_uint16_wraparound(red, nir, cloud):
    """A common mistake kept as NumPy computes it: uint16 nir - red wraps, and the ratio is float64."""
    diff = nir - red
    ndvi = diff / (nir.astype(np.int32) + red)
    ndvi[cloud] = 0
    return diff, ndvi


@case(_dem)
def d8_flow_direction(z, cell=30.0):
    """D8 flow direction: drops to the 8 neighbours from shifted views of a padded DEM, argmax to ESRI codes."""
    p = np.pad(z, 1, mode="constant", constant_values=np.inf)
    H, W = z.shape
    offs = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
    codes = np.array([1, 2, 4, 8, 16, 32, 64, 128], dtype=np.uint8)
    drops = np.empty((8, H, W))
    for k, (dy, dx) in enumerate(offs):
        dist = cell * (np.sqrt(2) if dy and dx else 1.0)
        drops[k] = (z - p[1 + dy:1 + dy + H, 1 + dx:1 + dx + W]) / dist
    best = drops.argmax(axis=0)
    fd = codes[best]
    fd[drops.max(axis=0) <= 0] = 0
    return fd, drops.max(axis=0)


@case(_dem)
def nearest_and_bilinear_resample(z, scale=1.6):
    """Nearest-neighbour and bilinear resampling onto a finer grid with integer index arrays and np.ix_."""
    H, W = z.shape
    h2, w2 = int(H * scale), int(W * scale)
    yi = np.minimum((np.arange(h2) / scale).astype(np.int64), H - 1)
    xi = np.minimum((np.arange(w2) / scale).astype(np.int64), W - 1)
    nearest = z[np.ix_(yi, xi)]
    ys = np.clip((np.arange(h2) + 0.5) / scale - 0.5, 0, H - 1)
    xs = np.clip((np.arange(w2) + 0.5) / scale - 0.5, 0, W - 1)
    y0 = np.floor(ys).astype(int)
    x0 = np.floor(xs).astype(int)
    y1 = np.minimum(y0 + 1, H - 1)
    x1 = np.minimum(x0 + 1, W - 1)
    wy = (ys - y0)[:, None]
    wx = (xs - x0)[None, :]
    top = z[y0][:, x0] * (1 - wx) + z[y0][:, x1] * wx
    bot = z[y1][:, x0] * (1 - wx) + z[y1][:, x1] * wx
    return nearest, top * (1 - wy) + bot * wy


@case(lambda n, rng: (rng.normal(20, 5, (2 * n + 2, 2 * n + 4)).astype(np.float32),))
def block_mean_downsample(z):
    """2x2 block aggregation by reshape: mean, max and the block's range, float32."""
    H, W = z.shape
    b = z.reshape(H // 2, 2, W // 2, 2)
    return b.mean(axis=(1, 3)), b.max(axis=(1, 3)), np.ptp(b, axis=(1, 3))


@case(_dem)
def reclassify_digitize(z):
    """Elevation classes by np.digitize into a lookup of land-cover codes (uint8), class areas."""
    bins = np.array([97.0, 100.0, 103.0, 106.0])
    cls = np.digitize(z, bins)
    lut = np.array([10, 20, 30, 40, 50], dtype=np.uint8)
    lc = lut[cls]
    area = np.array([(cls == k).sum() for k in range(5)]) * 900.0
    return lc, area


@case(lambda n, rng: (_dem(n, rng)[0], rng.integers(0, 4, (n + 4, n + 5))))
def zonal_statistics(z, zones):
    """Zonal mean, min, max and count of a raster by np.add.at and np.minimum.at/np.maximum.at over zone ids."""
    nz = 4
    s = np.zeros(nz)
    c = np.zeros(nz, dtype=np.int64)
    lo = np.full(nz, np.inf)
    hi = np.full(nz, -np.inf)
    np.add.at(s, zones.ravel(), z.ravel())
    np.add.at(c, zones.ravel(), 1)
    np.minimum.at(lo, zones.ravel(), z.ravel())
    np.maximum.at(hi, zones.ravel(), z.ravel())
    return s / c, lo, hi, c


@case(_dem)
def focal_max_min_3x3(z):
    """Focal max and min over 3x3 neighbourhoods by folding np.maximum over nine shifted views."""
    H, W = z.shape
    p = np.pad(z, 1, mode="constant", constant_values=-np.inf)
    q = np.pad(z, 1, mode="constant", constant_values=np.inf)
    mx = np.full_like(z, -np.inf)
    mn = np.full_like(z, np.inf)
    for dy in range(3):
        for dx in range(3):
            np.maximum(mx, p[dy:dy + H, dx:dx + W], out=mx)
            np.minimum(mn, q[dy:dy + H, dx:dx + W], out=mn)
    return mx, mn, mx - mn


@case(lambda n, rng: _dem(n, rng) + (rng.random((n + 4, n + 5)) < 0.2,))
def water_mask_nodata(z, water, nodata=-32768.0):
    """Water cells written to nodata in place, statistics by masked sums ignoring nodata, nanmean comparison."""
    z[water] = nodata
    valid = z != nodata
    mean = np.where(valid, z, 0).sum() / valid.sum()
    zn = np.where(valid, z, np.nan)
    return z, mean, np.nanmean(zn, axis=0), np.nanmax(zn)


@case(_dem)
def terrain_ruggedness_index(z):
    """TRI: root of summed squared differences to eight neighbours, written into the interior of an output."""
    out = np.zeros_like(z)
    c = z[1:-1, 1:-1]
    acc = np.zeros_like(c)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy == 0 and dx == 0:
                continue
            nb = z[1 + dy:z.shape[0] - 1 + dy, 1 + dx:z.shape[1] - 1 + dx]
            acc += (nb - c) ** 2
    out[1:-1, 1:-1] = np.sqrt(acc)
    return out


@case(_dem)
def profile_plan_curvature(z, L=30.0):
    """Zevenbergen-Thorne curvature terms from second differences of interior views."""
    Z1, Z2, Z3 = z[:-2, :-2], z[:-2, 1:-1], z[:-2, 2:]
    Z4, Z5, Z6 = z[1:-1, :-2], z[1:-1, 1:-1], z[1:-1, 2:]
    Z7, Z8, Z9 = z[2:, :-2], z[2:, 1:-1], z[2:, 2:]
    D = ((Z4 + Z6) / 2 - Z5) / L ** 2
    E = ((Z2 + Z8) / 2 - Z5) / L ** 2
    F = (-Z1 + Z3 + Z7 - Z9) / (4 * L ** 2)
    G = (-Z4 + Z6) / (2 * L)
    Hh = (Z2 - Z8) / (2 * L)
    curv = -2 * (D + E) * 100
    denom = G ** 2 + Hh ** 2
    prof = np.divide(2 * (D * G ** 2 + E * Hh ** 2 + F * G * Hh), denom, out=np.zeros_like(D), where=denom > 0)
    return curv, prof


@case(lambda n, rng: (rng.uniform(0, 100, (2 * n, 2)),))
def distance_to_points_raster(pts, cell=10.0):
    """Euclidean distance from each cell centre to the nearest point via meshgrid and np.hypot, plus allocation."""
    xs = (np.arange(10) + 0.5) * cell
    ys = (np.arange(8) + 0.5) * cell
    X, Y = np.meshgrid(xs, ys)
    d = np.hypot(X[..., None] - pts[:, 0], Y[..., None] - pts[:, 1])
    return d.min(axis=-1), d.argmin(axis=-1)


@case(lambda n, rng: (rng.gamma(2.0, 500.0, (3, n + 3, n + 4)).astype(np.float32),))
def percentile_stretch_rgb_uint8(img):
    """A 2-98 percentile stretch per band to uint8 with np.clip(out=) in place, band-first to band-last."""
    lo = np.percentile(img, 2, axis=(1, 2), keepdims=True)
    hi = np.percentile(img, 98, axis=(1, 2), keepdims=True)
    s = (img - lo) / (hi - lo)
    np.clip(s, 0, 1, out=s)
    rgb = (s * 255).round().astype(np.uint8)
    return lo, np.moveaxis(rgb, 0, -1)


@case(lambda n, rng: (rng.uniform(0, 10, (3, 4)) + np.arange(4) * 0.01,))
def flow_accumulation_sorted(z):
    """Flow accumulation on a small grid: cells visited from high to low by argsort, each passing its
    accumulated area to its lowest 4-neighbour with traced indices."""
    H, W = z.shape
    acc = np.ones(H * W)
    flat = z.ravel()
    order = np.argsort(-flat, kind="stable")
    p = np.pad(z, 1, constant_values=np.inf)
    nb = np.stack([p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]]).reshape(4, -1)
    off = np.array([-W, W, -1, 1])
    low = nb.argmin(axis=0)
    target = np.arange(H * W) + off[low]
    has = nb.min(axis=0) < flat
    for k in range(H * W):
        i = order[k]
        t = np.where(has[i], target[i], i)
        acc[t] += np.where(has[i], acc[i], 0.0)
    return acc.reshape(H, W)


@case(_dem)
def hypsometric_curve(z):
    """Hypsometric curve: np.histogram of elevation, reversed cumulative area fraction, integral by trapezoid."""
    counts, edges = np.histogram(z, bins=8)
    area_above = np.cumsum(counts[::-1])[::-1] / z.size
    rel_h = (edges[:-1] - edges[0]) / (edges[-1] - edges[0])
    hi = np.trapezoid(area_above, rel_h)
    return counts, edges, area_above, hi


@case(lambda n, rng: (rng.uniform(500000, 500300, 6 * n), rng.uniform(4100000, 4100200, 6 * n)))
def point_density_geotransform(x, y, x0=500000.0, y0=4100200.0, res=30.0):
    """Points to pixel indices through a geotransform (north-up, negative dy), clipped, density by np.add.at."""
    W, H = 10, 7
    col = np.floor((x - x0) / res).astype(np.int64)
    row = np.floor((y - y0) / -res).astype(np.int64)
    np.clip(col, 0, W - 1, out=col)
    np.clip(row, 0, H - 1, out=row)
    dens = np.zeros((H, W), dtype=np.int32)
    np.add.at(dens, (row, col), 1)
    return row, col, dens


# === weather and climate ==================================================================
def _monthly(n, rng):
    years = n + 2
    season = 10 * np.sin(2 * np.pi * (np.arange(12) - 3) / 12)
    t = 12 + season[None, :, None] + rng.normal(0, 1.5, (years, 12, 4))
    return t.reshape(years * 12, 4).astype(np.float32),


@case(_monthly)
def monthly_anomalies_climatology(t):
    """Monthly climatology by reshape(-1, 12, ...) mean over years, anomalies, and the warmest year."""
    yrs = t.reshape(-1, 12, t.shape[1])
    clim = yrs.mean(axis=0)
    anom = yrs - clim
    annual = anom.mean(axis=1)
    return clim, anom.reshape(t.shape), annual.argmax(axis=0)


def _daily(n, rng):
    d = 28 * (n - 1)
    doy = np.arange(d)
    tmean = 10 + 12 * np.sin(2 * np.pi * (doy - 100) / 365 * 6) + rng.normal(0, 3, d)
    return tmean, tmean + rng.uniform(2, 8, d), tmean - rng.uniform(2, 8, d)


@case(_daily)
def heating_cooling_degree_days(tmean, tmax, tmin, base=18.0):
    """HDD/CDD per day by np.maximum with 0, summed per 28-day block, and growing degree days capped at 30."""
    hdd = np.maximum(base - tmean, 0)
    cdd = np.maximum(tmean - base, 0)
    gdd = np.clip((np.minimum(tmax, 30) + np.maximum(tmin, 10)) / 2 - 10, 0, None)
    blocks = tmean.shape[0] // 28
    return hdd.reshape(blocks, 28).sum(axis=1), cdd.reshape(blocks, 28).sum(axis=1), np.cumsum(gdd)


@case(_daily)
def running_means_convolve(tmean, tmax, tmin):
    """Running 7-day means by np.convolve in 'valid' and 'same' modes, and a centred moving window by cumsum."""
    k = np.ones(7) / 7
    v = np.convolve(tmean, k, mode="valid")
    s = np.convolve(tmean, k, mode="same")
    c = np.cumsum(tmean)
    c7 = (c[6:] - np.concatenate([[0.0], c[:-7]])) / 7
    return v, s, c7


@case(lambda n, rng: (rng.normal(15, 5, (3 * n, 4, 5)).astype(np.float32), rng.uniform(0, 2000, (4, 5)),
                      rng.uniform(0, 2000, (4, 5))))
def lapse_rate_adjustment(t, z_grid, z_station, lapse=0.0065):
    """Temperatures adjusted to station height in place with a broadcast elevation difference (float32 stays)."""
    t -= lapse * (z_station - z_grid)
    frost = (t < 0).sum(axis=0)
    return t, frost


@case(lambda n, rng: (rng.normal(0, 5, (n + 2, 6)).astype(np.float32), rng.normal(0, 5, (n + 2, 6)).astype(np.float32)))
def wind_speed_direction(u, v):
    """Wind speed by np.hypot and meteorological direction by arctan2 in degrees wrapped to [0, 360), compass sector."""
    spd = np.hypot(u, v)
    wdir = (270 - np.degrees(np.arctan2(v, u))) % 360
    sector = ((wdir + 22.5) // 45).astype(np.int64) % 8
    calm = spd < 0.5
    wdir[calm] = 0
    return spd, wdir, sector


@case(lambda n, rng: (rng.uniform(-10, 35, (n + 2, 6)).astype(np.float32),
                      rng.uniform(10, 100, (n + 2, 6)).astype(np.float32)))
def dew_point_magnus(t, rh):
    """Dew point by the Magnus formula in float32, and dew-point depression clipped at 0."""
    a, b = 17.625, 243.04
    gamma = np.log(rh / 100) + a * t / (b + t)
    td = b * gamma / (a - gamma)
    dep = np.maximum(t - td, 0)
    return td, dep


@case(lambda n, rng: (rng.gamma(0.6, 4.0, (20 * n, 3, 3)),))
def precipitation_extremes(pr):
    """Wet-day fraction, 95th percentile of wet days per cell via nanpercentile, and exceedance counts."""
    wet = pr >= 1.0
    frac = wet.mean(axis=0)
    wet_vals = np.where(wet, pr, np.nan)
    p95 = np.nanpercentile(wet_vals, 95, axis=0)
    exceed = (pr > p95).sum(axis=0)
    rx1 = pr.max(axis=0)
    return frac, p95, exceed, rx1


@case(_daily)
def growing_season_start(tmean, tmax, tmin, thresh=5.0, run=3):
    """First day of a run of `run` days above threshold, by a rolling all() on sliding windows and argmax."""
    above = tmean > thresh
    runs = sliding_window_view(above, run).all(axis=1)
    start = np.where(runs.any(), runs.argmax(), -1)
    below = sliding_window_view(~above, run).all(axis=1)
    after = np.arange(below.shape[0]) > start
    end = np.where((below & after).any(), (below & after).argmax(), tmean.shape[0])
    return start, end, end - start


@case(lambda n, rng: (rng.normal(10, 8, (n + 4, n + 6)), np.linspace(-80, 80, n + 4)))
def cos_lat_weighted_mean(field, lat):
    """Area-weighted global mean with cos(lat) weights by np.average, and hemispheric means."""
    w = np.cos(np.deg2rad(lat))
    zonal = field.mean(axis=1)
    gm = np.average(zonal, weights=w)
    nh = np.average(zonal, weights=np.where(lat > 0, w, 0.0))
    w2 = np.broadcast_to(w[:, None], field.shape)
    gm2 = np.average(field, weights=w2)
    return zonal, gm, nh, gm2


@case(lambda n, rng: (rng.uniform(20, 45, (n + 2, 5)), rng.uniform(20, 95, (n + 2, 5))))
def heat_index_piecewise(tc, rh):
    """NWS heat index: the Rothfusz regression where hot, the simple formula elsewhere, adjustments by masks."""
    T = tc * 9 / 5 + 32
    simple = 0.5 * (T + 61.0 + (T - 68.0) * 1.2 + rh * 0.094)
    hi = (-42.379 + 2.04901523 * T + 10.14333127 * rh - 0.22475541 * T * rh - 6.83783e-3 * T ** 2
          - 5.481717e-2 * rh ** 2 + 1.22874e-3 * T ** 2 * rh + 8.5282e-4 * T * rh ** 2 - 1.99e-6 * T ** 2 * rh ** 2)
    adj1 = (rh < 13) & (T > 80) & (T < 112)
    hi[adj1] -= (13 - rh[adj1]) / 4 * np.sqrt((17 - np.abs(T[adj1] - 95)) / 17)
    hi = np.where((simple + T) / 2 >= 80, hi, simple)
    return (hi - 32) * 5 / 9


@case(_monthly)
def seasonal_means_djf(t):
    """Seasonal means with December rolled to the front (DJF, MAM, JJA, SON), per year and cell."""
    y = np.roll(t, 1, axis=0).reshape(-1, 4, 3, t.shape[1])
    seas = y.mean(axis=2)
    seas[0, 0] = np.nan
    return seas, np.nanmean(seas, axis=0)


@case(lambda n, rng: (0.02 * np.arange(10 * n)[:, None] + rng.normal(0, 0.3, (10 * n, 4)),))
def linear_trend_polyfit(y):
    """Per-column linear trends by np.polyfit on a 2-D y, fitted values by np.polyval, residual std."""
    t = np.arange(y.shape[0], dtype=np.float64)
    coef = np.polyfit(t, y, 1)
    fit = coef[0] * t[:, None] + coef[1]
    return coef, (y - fit).std(axis=0), np.polyval(coef[:, 0], t)


def _with_nans(n, rng):
    x = rng.normal(15, 4, (8 * n, 3))
    x[rng.random(x.shape) < 0.15] = np.nan
    return x,


@case(_with_nans)
def standardized_anomalies_nan(x):
    """Standardised anomalies with nanmean/nanstd(ddof=1); missing values filled in place with the column mean."""
    mu = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0, ddof=1)
    z = (x - mu) / sd
    miss = np.isnan(x)
    x[miss] = np.broadcast_to(mu, x.shape)[miss]
    return z, np.count_nonzero(miss, axis=0), x


@case(lambda n, rng: (rng.integers(-2000, 4000, (4 * n, 3)).astype(np.int16),))
def packed_int16_unscale(raw, scale=0.01, offset=273.15, fill=-999):
    """CF-style packed data: int16 with a fill value, unpacked to float32, Kelvin to Celsius in place."""
    raw[0, 0] = fill
    mask = raw == fill
    t = raw.astype(np.float32) * np.float32(scale) + np.float32(offset)
    t[mask] = np.nan
    t -= np.float32(273.15)
    return t, np.nanmax(t, axis=0)


@case(lambda n, rng: (np.sort(rng.uniform(0, 10000, (n + 3, 6)), axis=1), rng.normal(15, 5, (n + 3, 6))))
def vertical_profile_interp(z, t, levels=(500.0, 1500.0, 3000.0, 5000.0)):
    """Profiles interpolated to fixed heights by np.interp per column in a loop, out of range to NaN."""
    lv = np.array(levels)
    out = np.empty((z.shape[0], lv.shape[0]))
    for i in range(z.shape[0]):
        out[i] = np.interp(lv, z[i], t[i], left=np.nan, right=np.nan)
    return out


@case(_daily)
def gdd_threshold_day(tmean, tmax, tmin, base=10.0, target=60.0):
    """Accumulated degree days and the first day reaching a target by np.searchsorted on the cumsum."""
    gdd = np.cumsum(np.maximum(tmean - base, 0.0))
    day = np.searchsorted(gdd, target, side="left")
    days = np.searchsorted(gdd, [20.0, 40.0, target], side="right")
    return gdd, day, days


@case(lambda n, rng: (rng.normal(0, 0.9, 12 * n),))
def enso_events_loop(sst_anom):
    """ONI-like 3-month running mean and an event counter: a loop keeping consecutive months above 0.5."""
    oni = np.convolve(sst_anom, np.ones(3) / 3, mode="same")
    state = np.zeros(oni.shape[0], dtype=np.int8)
    run_pos = 0
    run_neg = 0
    for i in range(min(20, oni.shape[0])):
        run_pos = np.where(oni[i] >= 0.5, run_pos + 1, 0)
        run_neg = np.where(oni[i] <= -0.5, run_neg + 1, 0)
        state[i] = np.where(run_pos >= 5, 1, np.where(run_neg >= 5, -1, 0))
    return oni, state


@case(lambda n, rng: (rng.uniform(300, 1013, (n + 2, 4)).astype(np.float32),))
def barometric_altitude(p, p0=1013.25, t0=288.15):
    """Pressure altitude from the barometric formula with np.power, float32, and its inverse."""
    h = t0 / 0.0065 * (1 - np.power(p / p0, 0.190263))
    p_back = p0 * (1 - 0.0065 * h / t0) ** 5.25588
    return h, p_back


# === image processing by hand =============================================================
def _gray(n, rng, dtype=np.uint8):
    return rng.integers(0, 256, (n + 4, n + 5)).astype(dtype),


@case(_gray)
def box_blur_shifted_views(img):
    """3x3 box blur by summing nine shifted views of an edge-padded uint16 copy, rounded back to uint8."""
    H, W = img.shape
    p = np.pad(img.astype(np.uint16), 1, mode="edge")
    acc = np.zeros((H, W), dtype=np.uint16)
    for dy in range(3):
        for dx in range(3):
            acc += p[dy:dy + H, dx:dx + W]
    return ((acc + 4) // 9).astype(np.uint8), acc


@case(lambda n, rng: (rng.random((n + 4, n + 5)).astype(np.float32),))
def separable_gaussian_blur(img, sigma=1.0):
    """Separable Gaussian: a float32 kernel built inside, rows then columns by weighted shifted views,
    reflect padding."""
    r = 2
    x = np.arange(-r, r + 1, dtype=np.float32)
    k = np.exp(-x ** 2 / (2 * sigma ** 2))
    k /= k.sum()
    H, W = img.shape
    p = np.pad(img, ((0, 0), (r, r)), mode="reflect")
    tmp = np.zeros_like(img)
    for i in range(2 * r + 1):
        tmp += k[i] * p[:, i:i + W]
    p = np.pad(tmp, ((r, r), (0, 0)), mode="reflect")
    out = np.zeros_like(img)
    for i in range(2 * r + 1):
        out += k[i] * p[i:i + H, :]
    return k, out


@case(_gray)
def sobel_edges_uint8(img):
    """Sobel gradients in int16 on shifted views, magnitude scaled and saturated to uint8, orientation bins."""
    f = img.astype(np.int16)
    gx = (f[:-2, 2:] + 2 * f[1:-1, 2:] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[1:-1, :-2] + f[2:, :-2])
    gy = (f[2:, :-2] + 2 * f[2:, 1:-1] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[:-2, 1:-1] + f[:-2, 2:])
    mag = np.sqrt(gx.astype(np.float32) ** 2 + gy.astype(np.float32) ** 2)
    out = np.zeros_like(img)
    out[1:-1, 1:-1] = np.clip(mag / 4, 0, 255).astype(np.uint8)
    ang = (np.round(np.arctan2(gy, gx) / (np.pi / 4)) % 4).astype(np.int8)
    return gx, gy, out, ang


@case(lambda n, rng: (rng.random((n + 5, n + 6)) < 0.55,))
def morphology_bool_shifted(mask):
    """Binary erosion, dilation, opening and a morphological gradient with &=, |= on shifted views."""
    def erode(m):
        p = np.pad(m, 1, constant_values=False)
        out = m.copy()
        out &= p[:-2, 1:-1]
        out &= p[2:, 1:-1]
        out &= p[1:-1, :-2]
        out &= p[1:-1, 2:]
        return out
    def dilate(m):
        p = np.pad(m, 1, constant_values=False)
        out = m.copy()
        out |= p[:-2, 1:-1]
        out |= p[2:, 1:-1]
        out |= p[1:-1, :-2]
        out |= p[1:-1, 2:]
        return out
    e = erode(mask)
    d = dilate(mask)
    opened = dilate(e)
    return e, d, opened, d & ~e, opened.sum()


@case(lambda n, rng: (rng.integers(40, 120, (n + 8, n + 9)).astype(np.uint8),))
def histogram_equalization(img):
    """Histogram equalisation: bincount of uint8 with minlength 256, CDF, LUT in uint8, applied by indexing."""
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = hist.cumsum()
    cdf_min = cdf[cdf > 0].min(initial=img.size)
    lut = np.round((cdf - cdf_min) / (img.size - cdf_min) * 255).clip(0, 255).astype(np.uint8)
    return hist, lut, lut[img]


@case(_gray)
def integral_image_box_sums(img, r=1):
    """Integral image by two cumsums into a zero-bordered int64 array, box sums by the four-corner formula."""
    H, W = img.shape
    ii = np.zeros((H + 1, W + 1), dtype=np.int64)
    ii[1:, 1:] = img.cumsum(axis=0).cumsum(axis=1)
    k = 2 * r + 1
    s = ii[k:, k:] - ii[:-k, k:] - ii[k:, :-k] + ii[:-k, :-k]
    return ii, s, s / k ** 2


@case(lambda n, rng: (np.concatenate([rng.normal(60, 10, 30 * n),
                                      rng.normal(170, 15, 20 * n)]).clip(0, 255).astype(np.uint8),))
def otsu_threshold(pixels):
    """Otsu's threshold from a 256-bin histogram: class weights and means by cumsum, argmax of between-class
    variance."""
    hist, _ = np.histogram(pixels, bins=256, range=(0, 256))
    p = hist / hist.sum()
    omega = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    mu_t = mu[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        sb = (mu_t * omega - mu) ** 2 / (omega * (1 - omega))
    sb = np.nan_to_num(sb)
    t = np.argmax(sb)
    return t, (pixels > t).mean()


@case(_gray)
def gamma_lut(img, gamma=2.2):
    """Gamma correction through a 256-entry float LUT rounded to uint8, applied with np.take."""
    lut = (np.power(np.arange(256) / 255.0, 1 / gamma) * 255 + 0.5).astype(np.uint8)
    return np.take(lut, img), lut


@case(lambda n, rng: (rng.integers(0, 256, (n + 3, n + 4, 3)).astype(np.uint8),))
def rgb_to_gray_and_back(rgb):
    """BT.601 luma with float weights, rounded to uint8; integer luma with fixed-point shifts; channel means."""
    w = np.array([0.299, 0.587, 0.114])
    y = (rgb @ w).round().astype(np.uint8)
    yi = ((rgb[..., 0].astype(np.uint32) * 77 + rgb[..., 1].astype(np.uint32) * 150
           + rgb[..., 2] * 29) >> 8).astype(np.uint8)
    return y, yi, rgb.mean(axis=(0, 1))


@case(lambda n, rng: (rng.integers(0, 256, (n + 4, n + 5)).astype(np.uint8),))
def unsharp_mask(img, amount=1.5):
    """Unsharp masking: a 3x3 blur, the detail added back in float32, clipped in place, cast to uint8."""
    f = img.astype(np.float32)
    p = np.pad(f, 1, mode="edge")
    blur = (p[:-2, :-2] + p[:-2, 1:-1] + p[:-2, 2:] + p[1:-1, :-2] + p[1:-1, 1:-1] + p[1:-1, 2:]
            + p[2:, :-2] + p[2:, 1:-1] + p[2:, 2:]) / 9
    sharp = f + amount * (f - blur)
    np.clip(sharp, 0, 255, out=sharp)
    return sharp.astype(np.uint8)


@case(_gray)
def median_filter_3x3(img):
    """Median filter by sliding_window_view windows of an edge-padded image and np.median over the window axes."""
    p = np.pad(img, 1, mode="edge")
    win = sliding_window_view(p, (3, 3))
    med = np.median(win, axis=(-2, -1))
    return med, med.astype(np.uint8)


@case(lambda n, rng: (rng.integers(0, 256, (n + 3, n + 4, 3)).astype(np.uint8),))
def flips_in_place_overlapping(img):
    """In-place flips by assigning reversed views onto themselves (NumPy copies overlapping operands)."""
    img[:] = img[::-1]
    img[:, :] = img[:, ::-1]
    img[..., :] = img[..., ::-1]
    return img.copy()


@case(lambda n, rng: (rng.integers(0, 256, (n + 3, n + 4, 3)).astype(np.uint8),
                      rng.integers(0, 256, (n + 3, n + 4, 3)).astype(np.uint8),
                      rng.random((n + 3, n + 4)).astype(np.float32)))
def alpha_blend_uint8(fg, bg, alpha):
    """Alpha compositing of uint8 images with a float32 alpha, in-place into bg through a region view."""
    a = alpha[..., None]
    out = (fg * a + bg * (1 - a)).round().astype(np.uint8)
    roi = bg[1:-1, 1:-1]
    roi[...] = out[1:-1, 1:-1]
    return out, bg.sum(dtype=np.int64)


@case(lambda n, rng: (rng.random((n + 3, n + 4)) < 0.5,))
def connected_components_propagation(fg, iters=10):
    """4-connected component labels by max-label propagation over a fixed number of sweeps on shifted views."""
    H, W = fg.shape
    lab = np.where(fg, np.arange(1, H * W + 1).reshape(H, W), 0)
    for _ in range(iters):
        p = np.pad(lab, 1)
        m = np.maximum(np.maximum(lab, np.maximum(p[:-2, 1:-1], p[2:, 1:-1])), np.maximum(p[1:-1, :-2], p[1:-1, 2:]))
        lab = np.where(fg, m, 0)
    return lab


@case(_gray)
def laplacian_int16(img):
    """Laplacian on int16 with a 4-neighbour stencil written into the interior of a zero array, and its abs sum."""
    f = img.astype(np.int16)
    L = np.zeros_like(f)
    L[1:-1, 1:-1] = f[:-2, 1:-1] + f[2:, 1:-1] + f[1:-1, :-2] + f[1:-1, 2:] - 4 * f[1:-1, 1:-1]
    return L, np.abs(L).sum(), L.var()


@case(_gray)
def contrast_stretch_uint8_inplace(img):
    """Contrast stretch of a uint8 image in place: percentiles, float math, written back with casting."""
    lo, hi = np.percentile(img, [5, 95])
    s = (img.astype(np.float64) - lo) * (255.0 / (hi - lo))
    img[...] = np.clip(s, 0, 255).astype(np.uint8)
    return lo, hi, img.mean()


@case(lambda n, rng: (rng.integers(0, 256, (n + 3, n + 4, 3)).astype(np.uint8),))
def color_quantize_shifts(img):
    """Posterisation in place with >>= and <<= on a uint8 image, a palette index, and its histogram."""
    img >>= 5
    idx = (img[..., 0].astype(np.int64) << 6) | (img[..., 1].astype(np.int64) << 3) | img[..., 2]
    img <<= 5
    img |= 16
    return idx, np.bincount((idx.ravel() & 255).astype(np.uint8), minlength=256)


@case(lambda n, rng: (rng.random((n + 3, n + 4, 3)).astype(np.float32),))
def rgb_to_hsv(rgb):
    """RGB to HSV with max/min, piecewise hue by np.select, division guarded by np.divide(where=)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx = rgb.max(axis=-1)
    mn = rgb.min(axis=-1)
    d = mx - mn
    s = np.divide(d, mx, out=np.zeros_like(mx), where=mx > 0)
    dd = np.where(d == 0, 1, d)
    h = np.select([mx == r, mx == g], [((g - b) / dd) % 6, (b - r) / dd + 2], (r - g) / dd + 4)
    h = np.where(d == 0, 0, h) / 6
    return np.stack([h, s, mx], axis=-1)


@case(lambda n, rng: (rng.random((n + 4, n + 5)).astype(np.float32),))
def nonmax_suppression_quantized(img):
    """Canny-style non-maximum suppression: gradient direction quantised to 4, neighbours chosen by np.select."""
    gy, gx = np.gradient(img)
    mag = np.hypot(gx, gy)
    ang = np.rad2deg(np.arctan2(gy, gx)) % 180
    q = ((ang + 22.5) // 45).astype(np.int64) % 4
    p = np.pad(mag, 1)
    H, W = mag.shape
    n1 = np.select([q == 0, q == 1, q == 2], [p[1:-1, 2:], p[2:, 2:], p[2:, 1:-1]], p[2:, :-2])
    n2 = np.select([q == 0, q == 1, q == 2], [p[1:-1, :-2], p[:-2, :-2], p[:-2, 1:-1]], p[:-2, 2:])
    keep = (mag >= n1) & (mag >= n2)
    return np.where(keep, mag, 0), q


# === graph algorithms on dense adjacency matrices =========================================
def _adj(n, rng, p=0.3):
    N = n + 4
    A = rng.random((N, N)) < p
    A = A | A.T
    np.fill_diagonal(A, False)
    return A,


@case(_adj)
def bfs_layers_dense(A, src=0):
    """BFS layers from a source on a bool adjacency: frontier expansion by matrix products in a fixed loop."""
    N = A.shape[0]
    dist = np.full(N, -1)
    dist[src] = 0
    frontier = np.zeros(N, dtype=bool)
    frontier[src] = True
    visited = frontier.copy()
    for d in range(1, N):
        nxt = A[frontier].any(axis=0) & ~visited
        dist[nxt] = d
        visited |= nxt
        frontier = nxt
    return dist, visited.sum()


@case(lambda n, rng: (np.where(rng.random((n + 4, n + 4)) < 0.4,
                               rng.integers(1, 10, (n + 4, n + 4)).astype(np.float64), np.inf),))
def floyd_warshall_in_place(D):
    """Floyd-Warshall in place with np.minimum(out=D) and broadcast row/column views of D itself."""
    np.fill_diagonal(D, 0)
    N = D.shape[0]
    for k in range(N):
        np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :], out=D)
    return D.max(where=np.isfinite(D), initial=0), np.isinf(D).sum()


@case(lambda n, rng: (np.where(rng.random((n + 4, n + 4)) < 0.4,
                               rng.integers(1, 10, (n + 4, n + 4)), 10 ** 6).astype(np.int32),))
def floyd_warshall_int_with_next(D):
    """Integer Floyd-Warshall with a next-hop matrix updated through the same improvement mask."""
    N = D.shape[0]
    np.fill_diagonal(D, 0)
    nxt = np.tile(np.arange(N), (N, 1))
    for k in range(N):
        cand = D[:, k, None] + D[None, k, :]
        better = cand < D
        D[better] = cand[better]
        nxt[better] = np.broadcast_to(nxt[:, k:k + 1], (N, N))[better]
    return D, nxt


@case(_adj)
def pagerank_power_iteration(A, d=0.85, iters=10):
    """PageRank: column-stochastic transitions, dangling nodes spread uniformly, 10 power iterations."""
    N = A.shape[0]
    out_deg = A.sum(axis=1)
    A = A.copy()
    A[0, :] = False
    out_deg = A.sum(axis=1)
    M = np.divide(A.T, out_deg, out=np.zeros((N, N)), where=out_deg > 0)
    dangling = out_deg == 0
    r = np.full(N, 1.0 / N)
    for _ in range(iters):
        r = d * (M @ r + r[dangling].sum() / N) + (1 - d) / N
    return r, np.argsort(-r, kind="stable")


@case(lambda n, rng: _adj(n, rng, 0.35) + (rng.integers(0, 3, n + 4),))
def label_propagation(A, labels, iters=8):
    """Label propagation: neighbour label votes by one-hot matmul, ties broken by argmax, updated in place."""
    L = 3
    lab = labels.copy()
    for _ in range(iters):
        onehot = np.eye(L, dtype=np.int64)[lab]
        votes = A.astype(np.int64) @ onehot
        has = votes.sum(axis=1) > 0
        lab[has] = votes.argmax(axis=1)[has]
    return lab


@case(_adj)
def normalized_laplacian_spectrum(A):
    """Degrees, symmetric normalised Laplacian with isolated nodes guarded, eigvalsh, algebraic connectivity."""
    Af = A.astype(np.float64)
    deg = Af.sum(axis=1)
    inv_sqrt = np.zeros_like(deg)
    np.divide(1.0, np.sqrt(deg), out=inv_sqrt, where=deg > 0)
    Ln = np.eye(A.shape[0]) - inv_sqrt[:, None] * Af * inv_sqrt[None, :]
    ev = np.linalg.eigvalsh(Ln)
    return deg, Ln, ev


@case(_adj)
def triangle_counts_int(A):
    """Triangles per node from diag(A^3)/2 with int64 matmuls, the total by trace/6, clustering coefficients."""
    Ai = A.astype(np.int64)
    A2 = Ai @ Ai
    tri = (A2 * Ai).sum(axis=1) // 2
    total = np.trace(A2 @ Ai) // 6
    deg = Ai.sum(axis=1)
    possible = deg * (deg - 1) // 2
    cc = np.divide(tri, possible, out=np.zeros(A.shape[0]), where=possible > 0)
    return tri, total, cc


@case(lambda n, rng: (rng.random((n + 4, n + 4)) < 0.2,))
def transitive_closure_squaring(A):
    """Reachability by repeated squaring of (I | A) with integer matmul, capped back to bool each step."""
    N = A.shape[0]
    R = A | np.eye(N, dtype=bool)
    for _ in range(int(np.ceil(np.log2(N)))):
        R = (R.astype(np.int32) @ R.astype(np.int32)) > 0
    return R, R.sum(axis=1)


@case(lambda n, rng: (np.where(rng.random((n + 4, n + 4)) < 0.5, rng.uniform(1, 10, (n + 4, n + 4)), np.inf),))
def dijkstra_dense(W, src=0):
    """Dense Dijkstra: N rounds choosing the unvisited node of least distance by argmin over np.where(inf)."""
    N = W.shape[0]
    dist = np.full(N, np.inf)
    dist[src] = 0.0
    done = np.zeros(N, dtype=bool)
    prev = np.full(N, -1)
    for _ in range(N):
        u = np.argmin(np.where(done, np.inf, dist))
        done[u] = True
        alt = dist[u] + W[u]
        better = (alt < dist) & ~done
        dist = np.where(better, alt, dist)
        prev = np.where(better, u, prev)
    return dist, prev


@case(lambda n, rng: (rng.uniform(1, 10, (n + 4, n + 4)),))
def prim_mst(W):
    """Prim's minimum spanning tree on a complete graph: key and parent arrays updated with masks."""
    W = np.minimum(W, W.T)
    N = W.shape[0]
    key = np.full(N, np.inf)
    key[0] = 0
    parent = np.full(N, -1)
    intree = np.zeros(N, dtype=bool)
    for _ in range(N):
        u = np.argmin(np.where(intree, np.inf, key))
        intree[u] = True
        upd = (~intree) & (W[u] < key)
        key[upd] = W[u][upd]
        parent[upd] = u
    return key.sum(), parent


@case(_adj)
def katz_centrality_solve(A, alpha=0.1):
    """Katz centrality by solving (I - alpha A^T) x = 1 with np.linalg.solve, normalised by its norm."""
    N = A.shape[0]
    x = np.linalg.solve(np.eye(N) - alpha * A.T, np.ones(N))
    return x / np.linalg.norm(x)


@case(_adj)
def jaccard_similarity_matrix(A):
    """Neighbourhood Jaccard similarity: intersections by int matmul, unions from degrees, diagonal zeroed."""
    Ai = A.astype(np.int64)
    inter = Ai @ Ai.T
    deg = Ai.sum(axis=1)
    union = deg[:, None] + deg[None, :] - inter
    J = np.divide(inter, union, out=np.zeros(inter.shape), where=union > 0)
    np.fill_diagonal(J, 0)
    return J, np.unravel_index(np.argmax(J), J.shape)


@case(_adj)
def random_walk_matrix_power(A):
    """Random-walk transition matrix, k-step probabilities by np.linalg.matrix_power, return probabilities."""
    Af = A.astype(np.float64) + np.eye(A.shape[0])
    P = Af / Af.sum(axis=1, keepdims=True)
    P3 = np.linalg.matrix_power(P, 3)
    return P3, np.diagonal(P3).copy(), P3.sum(axis=1)


@case(lambda n, rng: (rng.integers(0, n + 4, 3 * n), rng.integers(0, n + 4, 3 * n), rng.uniform(0.5, 2, 3 * n)))
def edge_list_to_adjacency(src, dst, w):
    """Weighted adjacency from an edge list with duplicate edges added by np.add.at, symmetrised, self loops dropped."""
    N = 10
    A = np.zeros((N, N))
    np.add.at(A, (src, dst), w)
    A = A + A.T
    A[np.diag_indices(N)] = 0
    return A, (A > 0).sum(axis=1), A.sum()


@case(lambda n, rng: (rng.integers(0, n + 4, 4 * n), rng.integers(0, n + 4, 4 * n), rng.uniform(1, 5, 4 * n)))
def bellman_ford_minimum_at(src, dst, w):
    """Bellman-Ford over an edge list: relaxations by np.minimum.at with gathered distances, N-1 rounds."""
    N = 9
    dist = np.full(N, np.inf)
    dist[0] = 0
    for _ in range(N - 1):
        np.minimum.at(dist, dst, dist[src] + w)
    return dist


@case(_adj)
def hits_hubs_authorities(A, iters=15):
    """HITS: hubs and authorities by alternating matrix-vector products, normalised by the max each step."""
    Af = A.astype(np.float64)
    Af[0, 1:3] = 1.0
    h = np.ones(A.shape[0])
    for _ in range(iters):
        a = Af.T @ h
        a /= a.max()
        h = Af @ a
        h /= h.max()
    return h, a


@case(_adj)
def k_core_peeling(A, k=3):
    """k-core by repeated peeling: degrees within the surviving set, nodes below k removed, a fixed number of rounds."""
    alive = np.ones(A.shape[0], dtype=bool)
    for _ in range(A.shape[0]):
        deg = (A & alive[None, :]).sum(axis=1)
        alive &= deg >= k
    return alive, (A & alive[:, None] & alive[None, :]).sum() // 2


# === recommender systems ==================================================================
def _ratings(n, rng, U=None, n_items=8):
    U = U or n + 3
    R = rng.integers(1, 6, (U, n_items)).astype(np.float64)
    M = rng.random((U, n_items)) < 0.5
    R[~M] = 0
    return R, M


@case(lambda n, rng: _ratings(n, rng) + (rng.normal(0, 0.1, (8, 3)),))
def als_user_step_batched_solve(R, M, V, lam=0.1):
    """One ALS user step: per-user normal equations built by einsum with the mask, solved in one batched solve."""
    k = V.shape[1]
    Mf = M.astype(np.float64)
    A = np.einsum("ui,ik,il->ukl", Mf, V, V) + lam * np.eye(k)
    b = np.einsum("ui,ik->uk", R * Mf, V)
    U = np.linalg.solve(A, b[..., None])[..., 0]
    pred = U @ V.T
    rmse = np.sqrt(((pred - R) ** 2 * Mf).sum() / Mf.sum())
    return U, rmse


@case(lambda n, rng: (rng.poisson(1.0, (n + 3, 7)).astype(np.float64), rng.normal(0, 0.1, (7, 3))))
def implicit_als_confidence(C, Y, alpha=10.0, lam=0.1):
    """Implicit-feedback ALS (Hu et al.): a loop over users, confidence-weighted normal equations, solve."""
    P = (C > 0).astype(np.float64)
    Conf = 1 + alpha * C
    YtY = Y.T @ Y
    X = np.zeros((C.shape[0], Y.shape[1]))
    for u in range(C.shape[0]):
        cu = Conf[u]
        A = YtY + Y.T @ ((cu - 1)[:, None] * Y) + lam * np.eye(Y.shape[1])
        X[u] = np.linalg.solve(A, Y.T @ (cu * P[u]))
    return X


@case(lambda n, rng: (rng.normal(size=(n + 3, 10)), rng.random((n + 3, 10)) < 0.3))
def topk_excluding_seen(scores, seen, k=3):
    """Top-k recommendations: seen items masked to -inf in place, a stable descending argsort, scores gathered."""
    scores[seen] = -np.inf
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    top = np.take_along_axis(scores, order, axis=1)
    return order, top


@case(lambda n, rng: (rng.normal(size=(n + 3, 10)), rng.random((n + 3, 10)) < 0.3, 3))
def precision_recall_at_k(scores, relevant, k):
    """Precision@k, recall@k and hit rate by ranking with argsort and gathering relevance with take_along_axis."""
    topk = np.argsort(scores, axis=1)[:, ::-1][:, :k]
    hits = np.take_along_axis(relevant, topk, axis=1)
    prec = hits.sum(axis=1) / k
    nrel = relevant.sum(axis=1)
    rec = np.divide(hits.sum(axis=1), nrel, out=np.zeros(scores.shape[0]), where=nrel > 0)
    return prec, rec, hits.any(axis=1).mean()


@case(lambda n, rng: (rng.poisson(0.8, (3 * n, 6)).astype(np.float32),))
def item_item_cosine(X):
    """Item-item cosine similarity, columns normalised in place (float32), diagonal removed, nearest item."""
    norms = np.linalg.norm(X, axis=0)
    X /= np.where(norms > 0, norms, 1)
    S = X.T @ X
    np.fill_diagonal(S, 0)
    return S, S.argmax(axis=1)


@case(lambda n, rng: _ratings(n, rng))
def user_mean_centering_masked(R, M):
    """Per-user means over observed ratings only, centred in place where observed, global bias by masked mean."""
    cnt = M.sum(axis=1)
    mu_u = np.divide(R.sum(axis=1), cnt, out=np.zeros(R.shape[0]), where=cnt > 0)
    R -= mu_u[:, None] * M
    item_bias = (R * M).sum(axis=0) / np.maximum(M.sum(axis=0), 1)
    return mu_u, R, item_bias, R[M].mean()


def _triples(n, rng):
    m = 3 * n + 3
    return rng.integers(0, 5, m), rng.integers(0, 6, m), rng.integers(1, 6, m).astype(np.float64), \
        rng.normal(0, 0.1, (5, 2)), rng.normal(0, 0.1, (6, 2))


@case(_triples)
def sgd_matrix_factorization(u, i, r, P, Q, lr=0.05, reg=0.02):
    """SGD over rating triples, one at a time: traced row indices, simultaneous in-place updates of P and Q rows."""
    for t in range(min(u.shape[0], 18)):
        pu = P[u[t]].copy()
        err = r[t] - pu @ Q[i[t]]
        P[u[t]] += lr * (err * Q[i[t]] - reg * pu)
        Q[i[t]] += lr * (err * pu - reg * Q[i[t]])
    return (P @ Q.T).clip(1, 5)


@case(lambda n, rng: (rng.integers(0, 12, 8 * n).astype(np.uint8), rng.uniform(0, 30, 8 * n)))
def time_decayed_popularity(item, age_days, half_life=7.0):
    """Popularity with exponential time decay: bincount of uint8 ids with weights, top items, counts."""
    w = 0.5 ** (age_days / half_life)
    pop = np.bincount(item, weights=w, minlength=256)[:12]
    cnt = np.bincount(item, minlength=256)[:12]
    return pop, cnt, np.argsort(pop)[::-1][:4]


def _bpr(n, rng):
    m = 2 * n + 4
    return (rng.integers(0, 4, m), rng.integers(0, 7, m), rng.integers(0, 7, m), rng.normal(0, 0.1, (4, 3)),
            rng.normal(0, 0.1, (7, 3)))


@case(_bpr)
def bpr_updates(u, i, j, W, H, lr=0.1, reg=0.01):
    """BPR triplet updates in a loop: sigmoid of score differences, in-place writes into user and item rows."""
    for t in range(min(u.shape[0], 14)):
        wu = W[u[t]].copy()
        x = wu @ (H[i[t]] - H[j[t]])
        g = 1.0 / (1.0 + np.exp(x))
        W[u[t]] += lr * (g * (H[i[t]] - H[j[t]]) - reg * wu)
        H[i[t]] += lr * (g * wu - reg * H[i[t]])
        H[j[t]] += lr * (-g * wu - reg * H[j[t]])
    return W, H


@case(lambda n, rng: (rng.normal(size=(n + 3, 8)), rng.integers(0, 4, (n + 3, 8))))
def ndcg_at_k(scores, rel, k=5):
    """NDCG@k with graded relevance: gains 2**rel - 1, log2 discounts, ideal DCG from a sorted copy."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    g = (2.0 ** np.take_along_axis(rel, order, axis=1) - 1)
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = (g * disc).sum(axis=1)
    ideal = -np.sort(-rel, axis=1)[:, :k]
    idcg = ((2.0 ** ideal - 1) * disc).sum(axis=1)
    return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)


@case(lambda n, rng: (rng.random((4 * n, 7)) < 0.3,))
def basket_cooccurrence_lift(B):
    """Co-occurrence counts by an integer matmul of one-hot baskets, supports, lift, diagonal cleared."""
    X = B.astype(np.int32)
    co = X.T @ X
    n = B.shape[0]
    supp = np.diagonal(co) / n
    pair = co / n
    lift = np.divide(pair, np.outer(supp, supp), out=np.zeros(co.shape), where=np.outer(supp, supp) > 0)
    np.fill_diagonal(lift, 0)
    return co, lift


@case(lambda n, rng: (rng.normal(size=(n + 3, 9)), rng.normal(size=(9, 9))))
def item_knn_predict(R, S, k=3):
    """Item-kNN: for every item keep its k most similar neighbours (argsort), a neighbour-weighted prediction."""
    S = (S + S.T) / 2
    np.fill_diagonal(S, -np.inf)
    nn = np.argsort(-S, axis=1)[:, :k]
    Wk = np.zeros_like(S)
    rows = np.arange(S.shape[0])[:, None]
    Wk[rows, nn] = np.take_along_axis(S, nn, axis=1)
    Wk = np.maximum(Wk, 0)
    denom = np.abs(Wk).sum(axis=1)
    pred = np.divide(R @ Wk.T, denom, out=np.zeros((R.shape[0], S.shape[0])), where=denom > 0)
    return nn, pred


@case(lambda n, rng: (rng.normal(3, 1.5, (n + 3, 6)),))
def rating_clip_half_stars(pred):
    """Predicted ratings clipped in place to [1, 5] by np.clip(out=) and rounded to half stars."""
    np.clip(pred, 1, 5, out=pred)
    half = np.round(pred * 2) / 2
    return pred, half, np.histogram(half, bins=9, range=(0.75, 5.25))[0]


@case(lambda n, rng: (rng.normal(size=(12, 4)), rng.integers(0, 12, (n + 2, 4))))
def intra_list_diversity(E, lists):
    """Intra-list diversity: pairwise cosine distances of each list's item embeddings by fancy indexing and einsum."""
    En = E / np.linalg.norm(E, axis=1, keepdims=True)
    L = En[lists]
    sim = np.einsum("bik,bjk->bij", L, L)
    k = lists.shape[1]
    iu = np.triu_indices(k, 1)
    return 1 - sim[:, iu[0], iu[1]].mean(axis=1)


@case(lambda n, rng: (rng.normal(0, 0.1, (6, 3)), rng.integers(0, 6, 4 * n), rng.normal(size=(4 * n, 3))))
def embedding_grad_add_at(E, ids, grads, lr=0.1):
    """Sparse embedding update: repeated ids accumulated by np.add.at into a gradient table, then E -= lr * g."""
    g = np.zeros_like(E)
    np.add.at(g, ids, grads)
    counts = np.bincount(ids.astype(np.uint8), minlength=256)[:6]
    E -= lr * g / np.maximum(counts, 1)[:, None]
    return E, counts


@case(lambda n, rng: (rng.normal(size=(n + 3, 9)).astype(np.float32) * 5,))
def softmax_logsumexp_float32(logits, temp=0.7):
    """Temperature softmax over item scores in float32 with the max trick, log-probs and entropy."""
    z = logits / temp
    z = z - z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z).sum(axis=1, keepdims=True))
    logp = z - lse
    p = np.exp(logp)
    ent = -(p * logp).sum(axis=1)
    return p, logp, ent


# === particle simulations =================================================================
def _particles(n, rng, d=2, L=10.0):
    N = 2 * n + 2
    return rng.uniform(0, L, (N, d)), rng.normal(0, 1, (N, d))


@case(_particles)
def leapfrog_harmonic_trap(x, v, k=1.0, dt=0.05, steps=15):
    """Kick-drift-kick leapfrog in a harmonic trap, positions and velocities updated in place, energy drift."""
    x -= 5.0
    e0 = 0.5 * (v ** 2).sum() + 0.5 * k * (x ** 2).sum()
    a = -k * x
    for _ in range(steps):
        v += 0.5 * dt * a
        x += dt * v
        a = -k * x
        v += 0.5 * dt * a
    e1 = 0.5 * (v ** 2).sum() + 0.5 * k * (x ** 2).sum()
    return e1 - e0


@case(_particles)
def periodic_wrap_mod_out(x, v, L=10.0, dt=0.7, steps=10):
    """Free streaming in a periodic box: np.mod(x, L, out=x) after every drift, crossing counts by floor_divide."""
    crossings = np.zeros(x.shape, dtype=np.int64)
    for _ in range(steps):
        x += dt * v
        crossings += np.floor_divide(x, L).astype(np.int64)
        np.mod(x, L, out=x)
    return crossings


@case(lambda n, rng: _particles(n, rng, 3))
def minimum_image_distances(x, v, L=10.0):
    """Pairwise displacement with the minimum image convention d -= L * np.round(d / L), distances, nearest
    neighbour."""
    d = x[:, None, :] - x[None, :, :]
    d -= L * np.round(d / L)
    r = np.sqrt((d ** 2).sum(axis=-1))
    np.fill_diagonal(r, np.inf)
    return d, r.min(axis=1), r.argmin(axis=1)


@case(lambda n, rng: (rng.uniform(0, 10.0, (6 * n, 2)),))
def cell_list_binning(x, L=10.0, nc=4):
    """Neighbour cell lists: integer cell coordinates, flat cell ids, counts by histogram, sort by cell, cell starts
    by searchsorted."""
    cell = np.floor(x / (L / nc)).astype(np.int64)
    np.clip(cell, 0, nc - 1, out=cell)
    cid = cell[:, 0] * nc + cell[:, 1]
    counts, _ = np.histogram(cid, bins=nc * nc, range=(0, nc * nc))
    order = np.argsort(cid, kind="stable")
    starts = np.searchsorted(cid[order], np.arange(nc * nc), side="left")
    return cid, counts, order, starts


@case(lambda n, rng: (rng.uniform(0, 4, (n + 4, 2)) + np.arange(n + 4)[:, None] * 1.2,))
def lennard_jones_forces(x, eps=1.0, sigma=1.0, rc=2.5):
    """All-pairs Lennard-Jones forces with a cutoff, diagonal masked by np.where, potential energy over pairs."""
    d = x[:, None, :] - x[None, :, :]
    r2 = (d ** 2).sum(axis=-1)
    N = x.shape[0]
    mask = (r2 < rc ** 2) & ~np.eye(N, dtype=bool)
    inv2 = np.where(mask, sigma ** 2 / np.where(mask, r2, 1.0), 0.0)
    inv6 = inv2 ** 3
    fmag = 24 * eps * (2 * inv6 ** 2 - inv6) * inv2
    F = (fmag[..., None] * d).sum(axis=1)
    U = 2 * eps * (inv6 ** 2 - inv6).sum()
    return F, U


@case(lambda n, rng: (rng.normal(0, 1, (n + 3, 3)), rng.normal(0, 0.3, (n + 3, 3)), rng.uniform(0.5, 2, n + 3)))
def velocity_verlet_nbody(x, v, m, G=1.0, soft=0.1, dt=0.01, steps=8):
    """Softened N-body gravity with velocity Verlet, accelerations by broadcasting, momentum check."""
    def acc(x):
        d = x[None, :, :] - x[:, None, :]
        r2 = (d ** 2).sum(-1) + soft ** 2
        inv3 = r2 ** -1.5
        np.fill_diagonal(inv3, 0.0)
        return G * (d * (inv3 * m[None, :])[..., None]).sum(axis=1)
    a = acc(x)
    for _ in range(steps):
        x += v * dt + 0.5 * a * dt ** 2
        a_new = acc(x)
        v += 0.5 * (a + a_new) * dt
        a = a_new
    return (m[:, None] * v).sum(axis=0)


@case(_particles)
def reflecting_walls(x, v, L=10.0, dt=0.9, steps=10):
    """Reflecting walls: positions mirrored back and velocity components flipped by boolean masks in place."""
    bounces = 0
    for _ in range(steps):
        x += dt * v
        lo = x < 0
        hi = x > L
        x[lo] *= -1
        x[hi] = 2 * L - x[hi]
        v[lo | hi] *= -1
        bounces = bounces + (lo | hi).sum()
    return bounces


@case(lambda n, rng: (rng.normal(0, 2, (3 * n, 3)).astype(np.float32), rng.uniform(1, 3, 3 * n).astype(np.float32)))
def thermostat_rescale_com(v, m, T_target=1.5):
    """Centre-of-mass velocity removed in place, temperature from kinetic energy, Berendsen-like rescale, float32."""
    vcm = (m[:, None] * v).sum(axis=0) / m.sum()
    v -= vcm
    ke = 0.5 * (m[:, None] * v ** 2).sum()
    T = 2 * ke / (3 * (v.shape[0] - 1))
    v *= np.sqrt(T_target / T)
    return vcm, T, v


@case(lambda n, rng: (rng.uniform(0, 8, 6 * n), rng.choice([-1.0, 1.0], 6 * n)))
def pic_cic_deposit(x, q, L=8.0, ng=8):
    """Particle-in-cell cloud-in-cell charge deposition with periodic wrap by np.add.at, field by np.gradient."""
    dx = L / ng
    s = x / dx
    i0 = np.floor(s).astype(np.int64)
    w1 = s - i0
    rho = np.zeros(ng)
    np.add.at(rho, i0 % ng, q * (1 - w1))
    np.add.at(rho, (i0 + 1) % ng, q * w1)
    rho /= dx
    E = -np.gradient(np.cumsum(rho) * dx)
    return rho, E


@case(lambda n, rng: (rng.uniform(0, 5, (4 * n, 3)),))
def radial_distribution_histogram(x, L=5.0, nb=10):
    """Radial distribution function from upper-triangle pair distances (np.triu_indices), histogram and shell
    volumes."""
    N = x.shape[0]
    i, j = np.triu_indices(N, 1)
    d = x[i] - x[j]
    d -= L * np.round(d / L)
    r = np.linalg.norm(d, axis=1)
    h, edges = np.histogram(r, bins=nb, range=(0, L / 2))
    shell = 4 / 3 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    g = h / shell / (N * (N - 1) / 2 / L ** 3)
    return h, g


@case(lambda n, rng: (np.arange(n + 5, dtype=np.float64) + rng.normal(0, 0.1, n + 5), np.zeros(n + 5)))
def spring_chain_inplace_forces(x, v, k=5.0, rest=1.0, dt=0.02, steps=15):
    """A chain of springs: forces accumulated with f[1:] -= and f[:-1] += on the same array, end fixed."""
    for _ in range(steps):
        f = np.zeros_like(x)
        ext = np.diff(x) - rest
        f[:-1] += k * ext
        f[1:] -= k * ext
        f[0] = 0
        v += dt * f
        x += dt * v
    return x, v


@case(lambda n, rng: (rng.uniform(0, 3, (3 * n, 2)), rng.uniform(0.5, 1.5, 3 * n)))
def sph_density_pressure(x, m, h=0.8, k=2.0, rho0=1.0):
    """SPH density with a cubic spline kernel by np.select on q, pressure from an equation of state."""
    r = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    q = r / h
    sigma = 10 / (7 * np.pi * h ** 2)
    W = sigma * np.select([q < 1, q < 2], [1 - 1.5 * q ** 2 + 0.75 * q ** 3, 0.25 * (2 - q) ** 3], 0.0)
    rho = (m[None, :] * W).sum(axis=1)
    P = k * (rho - rho0)
    return rho, P


@case(lambda n, rng: (rng.uniform(0, 10, (2 * n + 2, 2)), rng.normal(size=(12, 2 * n + 2, 2))))
def brownian_dynamics_with_noise(x, noise, D=0.5, dt=0.01, L=10.0):
    """Overdamped Langevin steps with pre-drawn noise, a harmonic tether, periodic wrap with % in place, MSD."""
    x0 = x.copy()
    unwrapped = x.copy()
    for t in range(noise.shape[0]):
        F = -(x - L / 2)
        dxs = F * dt + np.sqrt(2 * D * dt) * noise[t]
        x += dxs
        unwrapped += dxs
        x %= L
    msd = ((unwrapped - x0) ** 2).sum(axis=1).mean()
    return msd


@case(lambda n, rng: (rng.normal(size=(n + 3, 3)), rng.uniform(-np.pi, np.pi, 4)))
def rigid_rotations_einsum(pts, angles):
    """Rotation matrices about z built with stack, applied to all points at once by einsum, centroid preserved."""
    c, s = np.cos(angles), np.sin(angles)
    z, o = np.zeros_like(c), np.ones_like(c)
    R = np.stack([np.stack([c, -s, z], -1), np.stack([s, c, z], -1), np.stack([z, z, o], -1)], -2)
    rotated = np.einsum("aij,nj->ani", R, pts)
    return rotated, rotated.mean(axis=1), np.linalg.det(R)


@case(lambda n, rng: (rng.uniform(0, 10, (3 * n, 2)), rng.normal(size=(3 * n, 2))))
def boids_alignment_cohesion(x, v, radius=3.0, w_align=0.1, w_coh=0.05, w_sep=0.2):
    """Boids: neighbour masks from distances, alignment and cohesion by masked means (matmul), separation, speed cap."""
    d = x[:, None, :] - x[None, :, :]
    r = np.sqrt((d ** 2).sum(-1))
    nb = (r < radius) & (r > 0)
    cnt = nb.sum(1, keepdims=True)
    safe = np.maximum(cnt, 1)
    align = (nb @ v) / safe - v
    coh = (nb @ x) / safe - x
    close = (r < 1.0) & (r > 0)
    sep = (d * close[..., None]).sum(1)
    v += np.where(cnt > 0, w_align * align + w_coh * coh, 0) + w_sep * sep
    speed = np.linalg.norm(v, axis=1, keepdims=True)
    v *= np.minimum(1.0, 2.0 / speed)
    return v


@case(lambda n, rng: (np.cumsum(rng.normal(size=(4 * n, n + 2, 2)), axis=0),))
def mean_square_displacement_lags(traj, max_lag=6):
    """MSD over lag times from shifted views of a trajectory, averaged over origins and particles, diffusion fit;
    pins session 21's slice bounds from the elements of np.arange (traj[lag:] was refused as data-dependent)."""
    lags = np.arange(1, max_lag + 1)
    msd = np.empty(max_lag)
    for k, lag in enumerate(lags):
        dd = traj[lag:] - traj[:-lag]
        msd[k] = (dd ** 2).sum(axis=-1).mean()
    slope = np.polyfit(lags, msd, 1)[0]
    return msd, slope / 4


# === more constructs across the domains ===================================================
@case(_mono32)
def as_strided_frames_window_in_place(x, frame=8, hop=4):
    """Frames as an overlapping writable as_strided view of a copy, windowed in place (shared samples are
    multiplied once per frame that holds them, in NumPy's element order)."""
    y = x.copy()
    nf = 1 + (y.shape[0] - frame) // hop
    s = y.strides[0]
    frames = np.lib.stride_tricks.as_strided(y, shape=(nf, frame), strides=(hop * s, s))
    frames *= np.hanning(frame).astype(np.float32)
    return y


@case(_mono32)
def analytic_signal_envelope(x):
    """Hilbert envelope by FFT: a one-sided spectrum mask, ifft, complex64 analytic signal for float32 input."""
    N = x.shape[0]
    X = np.fft.fft(x)
    h = np.zeros(N, dtype=X.real.dtype)
    h[0] = 1
    h[1:(N + 1) // 2] = 2
    if N % 2 == 0:
        h[N // 2] = 1
    z = np.fft.ifft(X * h)
    return z, np.abs(z), np.unwrap(np.angle(z))


@case(lambda n, rng: (rng.random(4 * n + 4),))
def systematic_resampling(w, u0=0.37):
    """Particle-filter systematic resampling: cumsum of normalised weights, searchsorted positions, the particles
    then overwritten in place from themselves through the index array."""
    w = w / w.sum()
    N = w.shape[0]
    particles = np.linspace(-1.0, 1.0, N)
    pos = (u0 + np.arange(N)) / N
    c = np.cumsum(w)
    c[-1] = 1.0
    idx = np.searchsorted(c, pos)
    particles[:] = particles[idx]
    return idx, particles, np.bincount(idx.astype(np.uint8), minlength=256)[:N]


@case(lambda n, rng: (rng.integers(0, 4, 6 * n).astype(np.uint64),))
def rolling_2bit_kmer_hash(seq, k=4):
    """2-bit k-mer codes kept in a uint64 by a rolling shift-or-mask loop, as a genome indexer would write it."""
    mask = np.uint64((1 << (2 * k)) - 1)
    out = np.zeros(seq.shape[0] - k + 1, dtype=np.uint64)
    h = np.uint64(0)
    for i in range(min(seq.shape[0], 20)):
        h = ((h << np.uint64(2)) | seq[i]) & mask
        if i >= k - 1:
            out[i - k + 1] = h
    return out[:20 - k + 1]


@case(lambda n, rng: (rng.choice(np.frombuffer(b"ACGTN", dtype=np.uint8), 8 * n),))
def ascii_to_codes_lut(raw):
    """ASCII bytes to base codes with a 256-entry lookup table built inside (N as 4), masked GC count, isin."""
    lut = np.full(256, 4, dtype=np.uint8)
    lut[np.frombuffer(b"ACGT", dtype=np.uint8)] = np.arange(4, dtype=np.uint8)
    codes = lut[raw]
    valid = codes < 4
    gc = np.isin(codes, [1, 2])
    return codes, gc.sum(), valid.mean()


@case(lambda n, rng: (rng.integers(0, 4, 8 * n).astype(np.uint8),))
def pack_2bit_sequence(seq):
    """2-bit packing of a sequence, four bases per byte through strided views and shifts, and unpacking."""
    L = seq.shape[0] // 4 * 4
    s = seq[:L]
    packed = (s[0::4] << 6) | (s[1::4] << 4) | (s[2::4] << 2) | s[3::4]
    bits = np.unpackbits(packed)
    back = (bits[0::2] << 1) | bits[1::2]
    return packed, back


@case(lambda n, rng: (rng.integers(0, 40, 6 * n), rng.normal(size=6 * n)))
def reduceat_segments(pos, cov):
    """Per-segment sums by np.add.reduceat at fixed segment starts, and segment maxima by np.maximum.reduceat."""
    starts = np.array([0, 3, 7, 12])
    return np.add.reduceat(cov, starts), np.maximum.reduceat(cov, starts), np.add.reduceat(pos, starts)


@case(lambda n, rng: (rng.normal(size=(n + 4, 2)) * 3,))
def joint_histogram2d(xy):
    """A 2-D occupancy grid by np.histogram2d with explicit range, normalised, marginal entropy."""
    H, xe, ye = np.histogram2d(xy[:, 0], xy[:, 1], bins=(5, 4), range=[[-6, 6], [-6, 6]])
    P = H / H.sum()
    px = P.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(px > 0, px * np.log(px), 0).sum()
    return H, xe, ye, ent


@case(lambda n, rng: (100 + rng.normal(0, 1, 8 * n).cumsum(),))
def rolling_extremes_and_positions(p, w=5):
    """Donchian channel by sliding windows (max/min), breakout positions, trades from np.diff(prepend=0)."""
    win = sliding_window_view(p, w)
    hi = win.max(axis=-1)
    lo = win.min(axis=-1)
    pos = np.zeros(p.shape[0], dtype=np.int64)
    pos[w:] = np.where(p[w:] > hi[:-1], 1, np.where(p[w:] < lo[:-1], -1, 0))
    trades = np.diff(pos, prepend=0)
    return hi, lo, trades, np.abs(trades).sum()


@case(lambda n, rng: (rng.normal(0, 1, (n + 3, 3)), rng.normal(0, 1, n + 3)))
def lstsq_lapse_rate_fit(X, y):
    """Multiple regression by np.linalg.lstsq(rcond=None) with an intercept column stacked in, residuals, R^2."""
    A = np.column_stack([np.ones(X.shape[0]), X])
    coef, res, rank, sv = np.linalg.lstsq(A, y, rcond=None)
    fit = A @ coef
    r2 = 1 - ((y - fit) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    return coef, rank, r2


@case(lambda n, rng: (rng.integers(0, 256, (n + 3, n + 3, 4)).astype(np.uint8),))
def rgba_view_uint32_and_rot90(img):
    """RGBA pixels viewed as uint32 words, a colour key replaced through the view, rot90 assigned onto itself."""
    words = img.view(np.uint32)[..., 0]
    key = words[0, 0]
    words[words == key] = 0
    img[:] = np.rot90(img)
    return img, words.copy()


@case(lambda n, rng: (rng.integers(0, 256, (n + 3, n + 4)).astype(np.uint8),
                      rng.integers(0, 256, (n + 3, n + 4)).astype(np.uint8)))
def uint8_average_without_overflow(a, b):
    """Averaging uint8 images: the wrapping a + b, the halves trick, the widened exact mean, and abs difference."""
    wrap = (a + b) // 2
    halves = a // 2 + b // 2 + (a & b & 1)
    exact = ((a.astype(np.uint16) + b) // 2).astype(np.uint8)
    absdiff = np.where(a > b, a - b, b - a)
    return wrap, halves, exact, absdiff


@case(_adj)
def subgraph_write_ix(A):
    """Writes through np.ix_ with index arrays computed inside: a subgraph's block cleared, its degree after."""
    Ai = A.astype(np.int64)
    deg = Ai.sum(axis=1)
    hubs = np.argsort(-deg, kind="stable")[:3]
    Ai[np.ix_(hubs, hubs)] = 0
    np.fill_diagonal(Ai, 0)
    tri = np.triu(Ai, 1)
    return Ai.sum(axis=1), tri.sum(), hubs


@case(lambda n, rng: (rng.normal(size=(n + 3, 10)), rng.integers(0, 10, (n + 3, 2))))
def put_along_axis_boost(scores, boosted):
    """Business rules: boosted items' scores raised via put_along_axis, a blacklist with np.put, flat writes."""
    vals = np.take_along_axis(scores, boosted, axis=1) + 1.0
    np.put_along_axis(scores, boosted, vals, axis=1)
    np.put(scores, [0, 11], -10.0)
    scores.flat[5::10] = 0.0
    return np.argsort(-scores, axis=1, kind="stable")[:, :3], scores


@case(lambda n, rng: (rng.integers(1, 9, 3 * n).astype(np.int32),))
def int32_cumprod_overflow(x):
    """Compounding integer counters: cumprod in int32 wraps as NumPy's does; int64 and float64 for comparison."""
    return np.cumprod(x), np.cumprod(x, dtype=np.int64), np.cumprod(x.astype(np.float64)), np.prod(x, dtype=np.int32)


@case(lambda n, rng: (rng.uniform(0, 10, (4 * n, 2)), rng.normal(size=(4 * n, 2))))
def periodic_mask_wrap_inplace(x, v, L=10.0, dt=1.3, steps=6):
    """Periodic boundaries by boolean-mask in-place subtraction (x[x >= L] -= L), as many codes write them."""
    for _ in range(steps):
        x += dt * v
        x[x >= L] -= L
        x[x < 0] += L
    return x


@case(lambda n, rng: (rng.normal(size=5 * n + 3).astype(np.float32),))
def float32_fir_convolve(x):
    """A float32 FIR by np.convolve with float32 taps (NumPy keeps float32), and a float32 interp resample."""
    taps = np.array([0.25, 0.5, 0.25], dtype=np.float32)
    y = np.convolve(x, taps, mode="same")
    t_new = np.linspace(0, x.shape[0] - 1, 2 * x.shape[0]).astype(np.float32)
    r = np.interp(t_new, np.arange(x.shape[0], dtype=np.float32), y)
    return y, r


@case(lambda n, rng: (rng.normal(size=(n + 4, 4)).astype(np.float32),))
def select_float32_choices(z):
    """np.select over float32 choices with a Python default, np.piecewise, and the result dtypes NumPy gives."""
    a = np.select([z < -1, z > 1], [z * 0.5, z * 2], 0)
    b = np.piecewise(z, [z < 0, z >= 0], [lambda t: t ** 2, lambda t: -t])
    c = np.where(z > 0, z, 0.1)
    return a, b, c


def test_corpus_size():
    assert len(CORPUS) >= 2 * 150


@pytest.mark.parametrize("f,make,n,optimize", CORPUS)
def test_accept4_program_matches_numpy(f, make, n, optimize):
    check_against_numpy(f, *make(n, np.random.default_rng(100 + n)), optimize=optimize)
