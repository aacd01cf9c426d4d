"""A fully batched, fixed-shape tensor engine: spec §3 derive(G, c) for B slots.

States are int64 [B, A, 3] atoms (pred, arg0, arg1): constants >= 0, variable
Vk = -k, padding atoms (-1, 0, 0) after the goals. derive() returns the
derived list as [B, S, A, 3] plus its length k in 1..S, exactly as §3 orders
it, with no data-dependent shape and no host synchronization, so that one
step compiles into one CUDA graph.

How each §3 piece is tensorized (g1 = (p, s, o), rest = G[1:], n goals):
  * Fact steps read one window of W facts per slot from an index of F: the
    (p, s) range when s is a constant (ascending o'), else the (p, o) range
    when o is a constant (ascending s'), else all facts of p (ascending
    (s', o')). W is the longest such range of the knowledge base.
  * A fact step binds only the variables s and o, so every fact-derived state
    is rest with the same positions filled: it is canonicalized once per slot
    (a template) and two facts give equal states iff they agree on the bound
    variables that occur in rest. Dedupe among facts is therefore exact and
    elementwise (first fact of each (p, s') or (p, o') group, or the first
    match when no bound variable occurs in rest).
  * TRUE only comes from a fact step on a one-goal state (rule bodies are not
    empty), and a fact-derived state (n-1 atoms) never equals a rule-derived
    one (>= n atoms); so only rule states need a general dedupe, done exactly
    on packed integer keys among the <= RMAX rules of p.
  * Rule steps: padded per-predicate rule tables; the most general unifier of
    the head's two arguments with (s, o) is computed in closed form (two
    equivalence classes, merged when the head or the goal repeats a
    variable), then θ(body ++ rest) is built, length-checked and
    canonicalized with pairwise term comparisons (no scan).
"""

from typing import NamedTuple

import numpy as np
import torch

from .data import Dataset

PAD_PRED = -1


class EngineShape(NamedTuple):
    """Python ints baked into the compiled step."""
    E: int            # entities
    R: int            # relations; TRUE = R, FALSE = R + 1
    A: int            # max atoms per state
    S: int            # max derived states
    W: int            # fact window per slot
    RMAX: int         # max rules per head predicate
    MB: int           # max rule body length
    NF: int           # facts
    TT: int           # term code range for packing (E + 2A)
    PB: int           # pred code range for packing (R + 3)
    APW: int          # atoms packed per int64 word
    WORDS: int        # int64 words per packed state

    @property
    def TRUE(self) -> int:
        return self.R

    @property
    def FALSE(self) -> int:
        return self.R + 1


class EngineTensors(NamedTuple):
    """Device tensors of the fact/rule index (all int64)."""
    fact_p: torch.Tensor        # [NF] facts sorted by (p, s, o)
    fact_s: torch.Tensor        # [NF]
    fact_o: torch.Tensor        # [NF]
    ps_off: torch.Tensor        # [R*E+1] facts of (p, s) are fact[ps_off[k] .. ps_off[k+1])
    po_off: torch.Tensor        # [R*E+1] facts of (p, o) are fact[po_facts[ps_off[k] ..]]
    po_facts: torch.Tensor      # [NF] fact indices sorted by (p, o, s)
    pred_off: torch.Tensor      # [R+1]
    ps_first: torch.Tensor      # [NF] first fact of this fact's (p, s) group
    po_first: torch.Tensor      # [NF] first fact (smallest s) of its (p, o) group
    po_second: torch.Tensor     # [NF] second fact of its (p, o) group, or -1
    pred_rules: torch.Tensor    # [R, RMAX] rule ids per head predicate, file order
    pred_nrules: torch.Tensor   # [R]
    rule_head: torch.Tensor     # [NR, 2] head args; rule var -j renamed to -(2A + j)
    rule_body: torch.Tensor     # [NR, MB, 3] body atoms (renamed), padding atoms after
    rule_len: torch.Tensor      # [NR]
    tri_lt_terms: torch.Tensor  # [2A, 2A] bool, j < i
    tri_le_terms: torch.Tensor  # [2A, 2A] bool, j <= i
    tri_lt_rules: torch.Tensor  # [RMAX, RMAX] bool, j < i
    pack_pow: torch.Tensor      # [WORDS * APW] powers of the atom code base
    terminal: torch.Tensor      # [2, S, A, 3] the [TRUE] and [FALSE] lists
    pad_atom: torch.Tensor      # [3] (PAD_PRED, 0, 0)


def build_engine(ds: Dataset, A: int, S: int, facts_include_valid: bool,
                 device) -> "tuple[EngineShape, EngineTensors]":
    E, R = ds.num_entities, ds.num_relations
    triples = list(ds.train) + (list(ds.valid) if facts_include_valid else [])
    facts = np.array(sorted({(r, h, t) for h, r, t in triples}), dtype=np.int64).reshape(-1, 3)
    NF = len(facts)
    fp, fs, fo = facts[:, 0], facts[:, 1], facts[:, 2]

    def offsets(keys, size):
        counts = np.bincount(keys, minlength=size)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), counts

    ps_off, ps_counts = offsets(fp * E + fs, R * E)
    po_facts = np.lexsort((fs, fo, fp)).astype(np.int64)  # by (p, o, s)
    po_off, po_counts = offsets(fp * E + fo, R * E)
    pred_off, pred_counts = offsets(fp, R)
    W = int(max(1, ps_counts.max(initial=0), po_counts.max(initial=0), pred_counts.max(initial=0)))

    ps_first = ps_off[fp * E + fs] if NF else np.zeros(0, np.int64)
    po_lo = po_off[fp * E + fo] if NF else np.zeros(0, np.int64)
    po_first = po_facts[po_lo] if NF else np.zeros(0, np.int64)
    has_second = po_lo + 1 < po_off[fp * E + fo + 1] if NF else np.zeros(0, bool)
    po_second = np.where(has_second, po_facts[np.minimum(po_lo + 1, max(NF - 1, 0))], -1) \
        if NF else np.zeros(0, np.int64)

    rules = ds.rules
    MB = max([len(r.body) for r in rules], default=1)
    by_pred = [[] for _ in range(R)]
    for i, r in enumerate(rules):
        by_pred[r.head.p].append(i)
    RMAX = max(1, max(len(x) for x in by_pred) if R else 1)
    pred_rules = np.zeros((R, RMAX), np.int64)
    pred_nrules = np.zeros(R, np.int64)
    for p, ids in enumerate(by_pred):
        pred_rules[p, :len(ids)] = ids
        pred_nrules[p] = len(ids)
    NR = max(1, len(rules))
    rename = lambda t: t - 2 * A if t < 0 else t  # rule var -j -> -(2A + j): apart from G's
    rule_head = np.zeros((NR, 2), np.int64)
    rule_body = np.tile(np.array([PAD_PRED, 0, 0], np.int64), (NR, MB, 1))
    rule_len = np.ones(NR, np.int64)
    for i, r in enumerate(rules):
        rule_head[i] = (rename(r.head.a), rename(r.head.b))
        for k, atom in enumerate(r.body):
            rule_body[i, k] = (atom.p, rename(atom.a), rename(atom.b))
        rule_len[i] = len(r.body)

    # Exact packing of a canonical state (terms in [-2A, E)) into int64 words.
    TT, PB = E + 2 * A, R + 3
    base = PB * TT * TT
    APW = 1
    while base ** (APW + 1) < (1 << 62):
        APW += 1
    if base >= (1 << 62):
        raise ValueError(f"atom code range {base} does not fit an int64 word")
    WORDS = -(-A // APW)
    pack_pow = np.array([base ** (i % APW) for i in range(WORDS * APW)], dtype=np.int64)

    terminal = np.tile(np.array([PAD_PRED, 0, 0], np.int64), (2, S, A, 1))
    terminal[0, 0, 0] = (R, 0, 0)      # [TRUE]
    terminal[1, 0, 0] = (R + 1, 0, 0)  # [FALSE]

    idx = np.arange(2 * A)
    ridx = np.arange(RMAX)
    shape = EngineShape(E=E, R=R, A=A, S=S, W=W, RMAX=RMAX, MB=MB, NF=max(NF, 1),
                        TT=TT, PB=PB, APW=APW, WORDS=WORDS)
    t = lambda x, dtype=torch.int64: torch.as_tensor(np.ascontiguousarray(x), dtype=dtype, device=device)
    if NF == 0:  # keep every gather in range; no window position is ever valid
        fp = fs = fo = ps_first = po_first = np.zeros(1, np.int64)
        po_facts = np.zeros(1, np.int64)
        po_second = -np.ones(1, np.int64)
    tensors = EngineTensors(
        fact_p=t(fp), fact_s=t(fs), fact_o=t(fo), ps_off=t(ps_off), po_off=t(po_off),
        po_facts=t(po_facts), pred_off=t(pred_off), ps_first=t(ps_first), po_first=t(po_first),
        po_second=t(po_second), pred_rules=t(pred_rules), pred_nrules=t(pred_nrules),
        rule_head=t(rule_head), rule_body=t(rule_body), rule_len=t(rule_len),
        tri_lt_terms=t(idx[None, :] < idx[:, None], torch.bool),
        tri_le_terms=t(idx[None, :] <= idx[:, None], torch.bool),
        tri_lt_rules=t(ridx[None, :] < ridx[:, None], torch.bool),
        pack_pow=t(pack_pow), terminal=t(terminal), pad_atom=t([PAD_PRED, 0, 0]))
    return shape, tensors


def canonicalize(ta: torch.Tensor, tb: torch.Tensor, tri_lt: torch.Tensor,
                 tri_le: torch.Tensor):
    """§2 canonical renaming of [..., N] atoms given their args (non-goal
    positions must hold constants): variables become -1, -2, ... by first
    occurrence, arg0 before arg1, left to right. Pairwise, no scan."""
    shape = ta.shape
    n2 = 2 * shape[-1]
    terms = torch.stack((ta, tb), dim=-1).reshape(*shape[:-1], n2)
    var = terms < 0
    eq = (terms.unsqueeze(-1) == terms.unsqueeze(-2)) & var.unsqueeze(-1)  # [.., i, j]
    lt, le = tri_lt[:n2, :n2], tri_le[:n2, :n2]
    first = var & ~(eq & lt).any(-1)
    # newid[i] = number of first occurrences at positions <= i (1-based ids)
    newid = (first.unsqueeze(-2) & le).to(torch.int64).sum(-1)
    big = torch.full_like(newid, n2 + 1)
    ids = torch.where(eq, newid.unsqueeze(-2).expand_as(eq), big.unsqueeze(-2).expand_as(eq)).amin(-1)
    out = torch.where(var, -ids, terms).reshape(*shape, 2)
    return out[..., 0], out[..., 1]


def derive(t: EngineTensors, k: EngineShape, G: torch.Tensor, c: torch.Tensor):
    """§3 for every slot: G [B, A, 3] canonical non-terminal states, c [B, 3]
    the candidates (h, r, t). Returns (D [B, S, A, 3], count [B]). Rows whose
    G is not a goal state (terminal, padding) give meaningless but in-range
    results: every index is clamped."""
    B, A, S, W, E, R = G.shape[0], k.A, k.S, k.W, k.E, k.R
    dev = G.device
    preds, args_a, args_b = G[:, :, 0], G[:, :, 1], G[:, :, 2]
    n = (preds != PAD_PRED).to(torch.int64).sum(1)                 # goals
    p, s, o = preds[:, 0], args_a[:, 0], args_b[:, 0]
    ch, cr, ct = c[:, 0], c[:, 1], c[:, 2]
    pc = p.clamp(0, R - 1)
    sV, oV = s < 0, o < 0
    same = sV & oV & (s == o)
    one_goal = n == 1

    # --- fact window ---------------------------------------------------------
    key_s = pc * E + s.clamp(0, E - 1)
    key_o = pc * E + o.clamp(0, E - 1)
    use_ps, use_po = ~sV, sV & ~oV
    lo = torch.where(use_ps, t.ps_off[key_s], torch.where(use_po, t.po_off[key_o], t.pred_off[pc]))
    hi = torch.where(use_ps, t.ps_off[key_s + 1], torch.where(use_po, t.po_off[key_o + 1], t.pred_off[pc + 1]))
    j = torch.arange(W, device=dev)
    pos = lo.unsqueeze(1) + j                                          # [B, W]
    in_window = pos < hi.unsqueeze(1)
    pos = pos.clamp(max=k.NF - 1)
    fidx = torch.where(use_po.unsqueeze(1), t.po_facts[pos], pos)
    fs, fo = t.fact_s[fidx], t.fact_o[fidx]

    def is_cand(i):  # fact i is the candidate's own triple (never used, §3)
        return (t.fact_p[i] == cr.unsqueeze(1)) & (t.fact_s[i] == ch.unsqueeze(1)) & \
            (t.fact_o[i] == ct.unsqueeze(1))

    match = in_window & (sV.unsqueeze(1) | (fs == s.unsqueeze(1))) \
        & (oV.unsqueeze(1) | (fo == o.unsqueeze(1))) \
        & ~(same.unsqueeze(1) & (fs != fo)) & ~is_cand(fidx)

    # Which bound variables occur in rest decides which facts give equal states.
    rest_p, rest_a, rest_b = preds[:, 1:], args_a[:, 1:], args_b[:, 1:]
    s_a, s_b = sV.unsqueeze(1) & (rest_a == s.unsqueeze(1)), sV.unsqueeze(1) & (rest_b == s.unsqueeze(1))
    o_a, o_b = oV.unsqueeze(1) & (rest_a == o.unsqueeze(1)), oV.unsqueeze(1) & (rest_b == o.unsqueeze(1))
    used_s = (s_a | s_b).any(1)
    used_o = (o_a | o_b).any(1)
    neither = ~used_s & ~used_o
    by_s_group = used_s & ~used_o & oV & ~same   # all facts of p: one state per s'
    by_o_group = used_o & ~used_s & sV & ~same   # all facts of p: one state per o'
    first_match = torch.where(match, j, torch.full_like(pos, W)).amin(1, keepdim=True)
    # "some fact matches", read off first_match rather than a match.any(1)
    # that Inductor could fuse into the cumsum's split scan below (NYI there).
    is_true = one_goal & (first_match.squeeze(1) < W)
    g_s = t.ps_first[fidx]
    first_in_s = torch.where(is_cand(g_s), fidx == g_s + 1, fidx == g_s)
    g_o = t.po_first[fidx]
    first_in_o = torch.where(is_cand(g_o), fidx == t.po_second[fidx], fidx == g_o)
    distinct = torch.where(neither.unsqueeze(1), j == first_match,
                           torch.where(by_s_group.unsqueeze(1), first_in_s,
                                       torch.where(by_o_group.unsqueeze(1), first_in_o,
                                                   torch.ones_like(match))))
    keep_f = match & distinct & ~one_goal.unsqueeze(1)
    cum_f = torch.cumsum(keep_f.to(torch.int64), 1)
    nf = cum_f[:, -1]  # the count read off the scan (a separate sum trips Inductor)

    # The fact-state template: rest canonicalized with s, o bound (as constants).
    bound_a, bound_b = s_a | o_a, s_b | o_b
    tmpl_a, tmpl_b = canonicalize(torch.where(bound_a, torch.zeros_like(rest_a), rest_a),
                                  torch.where(bound_b, torch.zeros_like(rest_b), rest_b),
                                  t.tri_lt_terms, t.tri_le_terms)

    # --- rule steps ----------------------------------------------------------
    RMAX, MB = k.RMAX, k.MB
    jr = torch.arange(RMAX, device=dev)
    rid = t.pred_rules[pc]                                             # [B, RMAX]
    rvalid = jr < t.pred_nrules[pc].unsqueeze(1)
    n0, n1 = t.rule_head[rid, 0], t.rule_head[rid, 1]
    n2, n3 = s.unsqueeze(1).expand_as(n0), o.unsqueeze(1).expand_as(n0)
    v0, v1, v2, v3 = n0 < 0, n1 < 0, n2 < 0, n3 < 0
    # MGU of (n0, n1) with (n2, n3): classes {n0, n2} and {n1, n3}, merged when
    # the head repeats a variable (n0 == n1) or the goal does (n2 == n3).
    merged = (v0 & v1 & (n0 == n1)) | (v2 & v3 & (n2 == n3))
    ok_a = v0 | v2 | (n0 == n2)
    ok_b = v1 | v3 | (n1 == n3)
    has_ca, has_cb = ~v0 | ~v2, ~v1 | ~v3
    const_a = torch.where(~v2, n2, n0)
    const_b = torch.where(~v3, n3, n1)
    ok = ok_a & ok_b & ~(merged & has_ca & has_cb & (const_a != const_b))
    # Class values: the constant if any, else a representative variable (G's
    # when it has one; any choice gives the same canonical state).
    val_a = torch.where(has_ca, const_a, torch.where(v2, n2, n0))
    val_b = torch.where(has_cb, const_b, torch.where(v3, n3, n1))
    val_m = torch.where(has_ca, const_a, torch.where(has_cb, const_b, n2))
    val_a = torch.where(merged, val_m, val_a)
    val_b = torch.where(merged, val_m, val_b)

    L = t.rule_len[rid]
    length = L + n.unsqueeze(1) - 1
    rvalid = rvalid & ok & (length <= A)
    # θ(body ++ rest), written into A atom positions.
    body = t.rule_body[rid]                                            # [B, RMAX, MB, 3]
    rest = G[:, 1:, :].unsqueeze(1).expand(B, RMAX, A - 1, 3)
    both = torch.cat((body, rest), dim=2)                              # [B, RMAX, MB+A-1, 3]
    ka = torch.arange(A, device=dev)
    src = torch.where(ka < L.unsqueeze(-1), ka, MB + ka - L.unsqueeze(-1)).clamp(0, MB + A - 2)
    atoms = torch.gather(both, 2, src.unsqueeze(-1).expand(B, RMAX, A, 3))
    live = ka < length.unsqueeze(-1)                                   # [B, RMAX, A]

    def subst(term):
        e = lambda x: x.unsqueeze(-1)
        in_a = ((term == e(n0)) & e(v0)) | ((term == e(n2)) & e(v2))
        in_b = ((term == e(n1)) & e(v1)) | ((term == e(n3)) & e(v3))
        return torch.where(in_a, e(val_a), torch.where(in_b, e(val_b), term))

    zero = torch.zeros_like(atoms[..., 1])
    r_p = torch.where(live, atoms[..., 0], torch.full_like(zero, PAD_PRED))
    r_a = torch.where(live, subst(atoms[..., 1]), zero)
    r_b = torch.where(live, subst(atoms[..., 2]), zero)
    r_a, r_b = canonicalize(r_a, r_b, t.tri_lt_terms, t.tri_le_terms)
    rule_states = torch.stack((r_p, r_a, r_b), dim=-1)                # [B, RMAX, A, 3]

    # Exact dedupe of rule states (keep the first) on packed int64 keys.
    code = ((r_p + 1) * k.TT + (r_a + 2 * A)) * k.TT + (r_b + 2 * A)   # [B, RMAX, A]
    if k.WORDS * k.APW > A:
        code = torch.cat((code, code.new_zeros(B, RMAX, k.WORDS * k.APW - A)), dim=-1)
    words = (code * t.pack_pow).reshape(B, RMAX, k.WORDS, k.APW).sum(-1)
    same_state = (words.unsqueeze(2) == words.unsqueeze(1)).all(-1)    # [B, i, j]
    dup = (same_state & rvalid.unsqueeze(1) & t.tri_lt_rules).any(-1)
    keep_r = rvalid & ~dup
    cum_r = torch.cumsum(keep_r.to(torch.int64), 1)
    total = nf + cum_r[:, -1]

    # --- the first S states: facts in order, then rules in order -------------
    dump = torch.full((B, 1), S, dtype=torch.int64, device=dev)
    pos_f = torch.where(keep_f, cum_f - 1, dump).clamp(max=S)
    pos_r = torch.where(keep_r, nf.unsqueeze(1) + cum_r - 1, dump).clamp(max=S)
    slot = torch.zeros((B, S + 1), dtype=torch.int64, device=dev)
    sel_f = slot.scatter(1, pos_f, j.unsqueeze(0).expand(B, W))[:, :S]
    sel_r = slot.scatter(1, pos_r, jr.unsqueeze(0).expand(B, RMAX))[:, :S]
    ks = torch.arange(S, device=dev).unsqueeze(0)
    from_fact = ks < nf.unsqueeze(1)
    from_rule = ~from_fact & (ks < total.unsqueeze(1))

    fill_s, fill_o = fs.gather(1, sel_f).unsqueeze(-1), fo.gather(1, sel_f).unsqueeze(-1)  # [B, S, 1]
    e2 = lambda x: x.unsqueeze(1)
    fa = torch.where(e2(s_a), fill_s, torch.where(e2(o_a), fill_o, e2(tmpl_a)))
    fb = torch.where(e2(s_b), fill_s, torch.where(e2(o_b), fill_o, e2(tmpl_b)))
    fp = e2(rest_p).expand_as(fa)
    fact_states = torch.stack((fp, fa, fb), dim=-1)                    # [B, S, A-1, 3]
    pad_atom = t.pad_atom
    fact_states = torch.cat((fact_states, pad_atom.expand(B, S, 1, 3)), dim=2)
    rule_pick = torch.gather(rule_states, 1, sel_r.view(B, S, 1, 1).expand(B, S, A, 3))
    D = torch.where(from_fact.view(B, S, 1, 1), fact_states,
                    torch.where(from_rule.view(B, S, 1, 1), rule_pick, pad_atom))
    empty = ~is_true & (total == 0)
    D = torch.where(is_true.view(B, 1, 1, 1), t.terminal[0],
                    torch.where(empty.view(B, 1, 1, 1), t.terminal[1], D))
    count = torch.where(is_true | empty, torch.ones_like(total), total.clamp(max=S))
    return D, count


def initial_states(triples: torch.Tensor, pad_atom: torch.Tensor, A: int) -> torch.Tensor:
    """canon([(r, h, t)]) for candidates [B, 3] (h, r, t): [B, A, 3] (a
    triple has no variables, so it is canonical as it is)."""
    B = triples.shape[0]
    first = torch.stack((triples[:, 1], triples[:, 0], triples[:, 2]), dim=-1).unsqueeze(1)
    return torch.cat((first, pad_atom.expand(B, A - 1, 3)), dim=1)
