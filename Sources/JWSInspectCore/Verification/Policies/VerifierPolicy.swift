/// One check, as a type: its name in the report, the status a token gets when it fails,
/// and the payload members it reads.
///
/// Policies are run by `PolicyStep`, in the order `Policies.make(_:)` lists them, with static
/// dispatch: a policy is a caseless enum of static functions, never an existential in the hot
/// path. Adding a check is adding one such file and naming it in `Policies.make(_:)`.
protocol VerifierPolicy {
    /// The check's identifier, as reports and `--format json` show it.
    static var name: Check.Name { get }
    /// The status an input gets when this check fails (the first failing check decides).
    static var failureStatus: Status { get }
    /// The payload members the check reads from `CompactJWS.DecodedSegment.essentials`: the
    /// decoded members (`PayloadKeys`) are the union of the chosen policies' declarations.
    /// (A notification's bodies are always decoded; checks that need more than the essentials
    /// on a rare path read the whole payload, `payload.object`, and declare nothing for it.)
    static var payloadMembers: [String] { get }
}
