% check_proofs.pl - checks a proofc proofs file (--proofs-format prolog)
% independently of proofc, in SWI-Prolog.
%
%   swipl check_proofs.pl DATASET_DIR PROOFS.pl
%
% Loads the facts (DATASET_DIR/train.tsv, read here as TAB-separated names)
% and the rules (DATASET_DIR/rules.txt, read by Prolog's own reader: the
% rule syntax of spec 1.1 is Prolog's) and checks every proof/7 term of the
% file (docs/proofs.md):
%   - the first goal list is [r(h,t)], the candidate's own triple, and there
%     are Depth steps;
%   - each step is a valid SLD resolution step: the substitution is a set of
%     bindings v(K)=Term of variables of the goals and the clause, idempotent;
%     the clause is a train fact other than the candidate's own triple, or
%     the rule on the given line of rules.txt (its head and body a variant of
%     the rule read from the file, its variables apart from the goals', its
%     text the same rule); the substitution makes the first goal and the
%     clause's head (the fact) equal; the resolvent is the clause body
%     followed by the other goals, with the substitution applied;
%   - the next step's goals are the resolvent up to a renaming of variables
%     (proofc renames them to canonical form), and the last resolvent is [].
% Prints the number of proofs checked and exits 0, or names the first bad
% proof and step on stderr and exits 1.

:- initialization(main, main).

:- dynamic kb_fact/3.
:- dynamic kb_rule/2.

main(Argv) :-
    (   Argv = [Dir, File]
    ->  true
    ;   format(user_error, "usage: swipl check_proofs.pl DATASET_DIR PROOFS.pl~n", []),
        halt(2)
    ),
    catch(( load_facts(Dir),
            load_rules(Dir),
            check_file(File, N)
          ),
          check_error(Msg),
          ( format(user_error, "check_proofs: ~w~n", [Msg]), halt(1) )),
    aggregate_all(count, kb_fact(_, _, _), NF),
    aggregate_all(count, kb_rule(_, _), NR),
    format("check_proofs: ~d proofs checked (~d facts, ~d rules)~n", [N, NF, NR]).

fail_with(Format, Args) :-
    format(atom(Msg), Format, Args),
    throw(check_error(Msg)).

%% The knowledge base.

load_facts(Dir) :-
    atom_concat(Dir, '/train.tsv', Path),
    setup_call_cleanup(open(Path, read, S, [encoding(utf8)]),
                       read_facts(S), close(S)).

read_facts(S) :-
    read_line_to_string(S, Line),
    (   Line == end_of_file
    ->  true
    ;   (   Line == ""
        ->  true
        ;   split_string(Line, "\t", "\r", [H, R, T])
        ->  atom_string(HA, H), atom_string(RA, R), atom_string(TA, T),
            assertz(kb_fact(RA, HA, TA))
        ;   fail_with("train.tsv: not a triple: ~w", [Line])
        ),
        read_facts(S)
    ).

load_rules(Dir) :-
    atom_concat(Dir, '/rules.txt', Path),
    setup_call_cleanup(open(Path, read, S, [encoding(utf8)]),
                       read_rules(S), close(S)).

read_rules(S) :-
    read_term(S, T, [term_position(P)]),
    (   T == end_of_file
    ->  true
    ;   stream_position_data(line_count, P, Line),
        assertz(kb_rule(Line, T)),
        read_rules(S)
    ).

%% The proofs file.

check_file(File, N) :-
    setup_call_cleanup(open(File, read, S, [encoding(utf8)]),
                       check_terms(S, 0, N), close(S)).

check_terms(S, N0, N) :-
    read_term(S, T, []),
    (   T == end_of_file
    ->  N = N0
    ;   check_proof(T),
        N1 is N0 + 1,
        check_terms(S, N1, N)
    ).

check_proof(proof(Cand, _Query, Mode, Positive, Own, Depth, Steps)) :- !,
    (   integer(Cand), memberchk(Mode, [head, tail]),
        memberchk(Positive, [true, false]), ground(Own), Own =.. [_, _, _],
        integer(Depth), is_list(Steps)
    ->  true
    ;   fail_with("proof of candidate ~w: malformed header", [Cand])
    ),
    length(Steps, Len),
    (   Len =:= Depth, Len > 0
    ->  true
    ;   fail_with("proof of candidate ~w: ~d steps for depth ~w", [Cand, Len, Depth])
    ),
    Steps = [step(Goals0, _, _, _, _, _)|_],
    (   Goals0 == [Own]
    ->  true
    ;   fail_with("proof of candidate ~w: first goals ~q are not [~q]", [Cand, Goals0, Own])
    ),
    check_steps(Steps, Own, Cand, 1).
check_proof(T) :-
    fail_with("not a proof/7 term: ~q", [T]).

check_steps([Step], Own, Cand, I) :- !,
    check_step(Step, Own, Cand, I),
    Step = step(_, _, _, _, _, Res),
    (   Res == []
    ->  true
    ;   fail_with("proof of candidate ~w, step ~d: the last resolvent ~q is not empty",
                  [Cand, I, Res])
    ).
check_steps([Step, Next|More], Own, Cand, I) :-
    check_step(Step, Own, Cand, I),
    Step = step(_, _, _, _, _, Res),
    Next = step(Goals, _, _, _, _, _),
    repr_term(Res, ResT),
    repr_term(Goals, GoalsT),
    (   ResT =@= GoalsT
    ->  true
    ;   fail_with("proof of candidate ~w, step ~d: the next goals ~q are not a renaming of the resolvent ~q",
                  [Cand, I, Goals, Res])
    ),
    I1 is I + 1,
    check_steps([Next|More], Own, Cand, I1).

check_step(step(Goals, Action, Derived, Clause, Subst, Res), Own, Cand, I) :- !,
    Where = candidate(Cand, step(I)),
    (   Goals = [G1|Rest]
    ->  true
    ;   fail_with("~w: empty goal list", [Where])
    ),
    (   integer(Action), integer(Derived), Action >= 0, Action < Derived
    ->  true
    ;   fail_with("~w: action ~w out of 0..~w", [Where, Action, Derived])
    ),
    check_subst(Subst, Where),
    repr_vars(Goals, GoalVars),
    check_clause(Clause, Own, Where, Heads, Body, ClauseVars),
    (   intersection(GoalVars, ClauseVars, [])
    ->  true
    ;   fail_with("~w: the clause's variables are not apart from the goals'", [Where])
    ),
    forall(member(v(K)=_, Subst),
           (   ( memberchk(K, GoalVars) ; memberchk(K, ClauseVars) )
           ->  true
           ;   fail_with("~w: the substitution binds v(~w), not a variable of the step", [Where, K])
           )),
    apply_subst(Subst, G1, G1s),
    apply_subst(Subst, Heads, Hs),
    (   G1s == Hs
    ->  true
    ;   fail_with("~w: the substitution does not unify ~q with ~q", [Where, G1, Heads])
    ),
    append(Body, Rest, New),
    apply_subst(Subst, New, Expected),
    (   Res == Expected
    ->  true
    ;   fail_with("~w: resolvent ~q, expected ~q", [Where, Res, Expected])
    ).
check_step(Step, _, Cand, I) :-
    fail_with("candidate ~w, step ~d: not a step/6 term: ~q", [Cand, I, Step]).

% check_clause(+Clause, +Own, +Where, -Head, -Body, -Vars)
check_clause(fact(F), Own, Where, F, [], []) :- !,
    (   ground(F), F =.. [P, A, B], kb_fact(P, A, B)
    ->  true
    ;   fail_with("~w: ~q is not a train fact", [Where, F])
    ),
    (   F == Own
    ->  fail_with("~w: uses the candidate's own triple ~q as a fact", [Where, F])
    ;   true
    ).
check_clause(rule(Line, Text, Head, Body), _, Where, Head, Body, Vars) :- !,
    (   kb_rule(Line, FileRule)
    ->  true
    ;   fail_with("~w: no rule on line ~w of rules.txt", [Where, Line])
    ),
    (   is_list(Body), Body \== []
    ->  true
    ;   fail_with("~w: the rule's body ~q is not a non-empty list", [Where, Body])
    ),
    conj_list(Conj, Body),
    repr_term((Head :- Conj), Used),
    (   Used =@= FileRule
    ->  true
    ;   fail_with("~w: the rule ~q is not a renaming of line ~w of rules.txt (~q)",
                  [Where, Used, Line, FileRule])
    ),
    (   catch(term_string(TextRule, Text), _, fail), TextRule =@= FileRule
    ->  true
    ;   fail_with("~w: the text ~q is not the rule on line ~w", [Where, Text, Line])
    ),
    repr_vars([Head|Body], Vars).
check_clause(C, _, Where, _, _, _) :-
    fail_with("~w: not a fact/1 or rule/4 clause: ~q", [Where, C]).

conj_list(G, [G]) :- !.
conj_list((G, Gs), [G|More]) :- conj_list(Gs, More).

check_subst(Subst, Where) :-
    (   is_list(Subst)
    ->  true
    ;   fail_with("~w: the substitution is not a list", [Where])
    ),
    findall(K, member(v(K)=_, Subst), Keys),
    length(Subst, N),
    sort(Keys, Sorted),
    (   length(Sorted, N), forall(member(K, Keys), (integer(K), K > 0))
    ->  true
    ;   fail_with("~w: the substitution ~q does not bind distinct variables v(K)", [Where, Subst])
    ),
    forall(member(_=T, Subst),
           (   atom(T)
           ->  true
           ;   T = v(J), integer(J), \+ memberchk(J, Keys)
           ->  true
           ;   fail_with("~w: the substitution is not idempotent (~q)", [Where, T])
           )).

%% Terms: constants are atoms, variable K is v(K).

apply_subst(S, v(K), T) :- integer(K), !,
    (   memberchk(v(K)=T0, S) -> T = T0 ; T = v(K) ).
apply_subst(_, X, X) :- atomic(X), !.
apply_subst(S, X, Y) :-
    X =.. [F|As],
    maplist(apply_subst(S), As, Bs),
    Y =.. [F|Bs].

repr_vars(X, Ks) :-
    findall(K, repr_var(X, K), Ks0),
    sort(Ks0, Ks).

repr_var(v(K), K) :- integer(K), !.
repr_var(X, K) :- compound(X), X =.. [_|As], member(A, As), repr_var(A, K).

% repr_term(+Repr, -Term): v(K) replaced by one fresh variable per K.
repr_term(X, T) :- repr_term(X, T, [], _).

repr_term(v(K), V, M0, M) :- integer(K), !,
    (   memberchk(K-V0, M0) -> V = V0, M = M0 ; M = [K-V|M0] ).
repr_term(X, X, M, M) :- atomic(X), !.
repr_term(X, T, M0, M) :-
    X =.. [F|As],
    foldl_repr(As, Ts, M0, M),
    T =.. [F|Ts].

foldl_repr([], [], M, M).
foldl_repr([A|As], [T|Ts], M0, M) :-
    repr_term(A, T, M0, M1),
    foldl_repr(As, Ts, M1, M).
