internal import FoundationEssentials
internal import JWSInspectCore

/// The one `access` object every record of every subcommand writes (inspect, fetch, timeline):
/// `{grants, state, until, detail, time, decidedBy}`, the same keys of the same types.
///
/// - `grants`: true, false, or null (not decided: unproven data, or the app's to decide);
/// - `state`: `Entitlement.State`'s name ("active", "billing-grace-period", …);
/// - `until`: when an expiring grant ends (ISO-8601 UTC), else null;
/// - `detail`: the decision in words; `time`: the access time it was made at;
/// - `decidedBy`: the signed items that decided it, by their path in the record ("payload",
///   "data.signedRenewalInfo", "data.status").
enum AccessJSON {
    static func write(_ access: Entitlement.Access, time: Date, into stream: inout JSONStream) {
        stream.openObject()
        stream.key("grants")
        stream.bool(access.grantsAccess)
        stream.key("state")
        stream.plain(access.state.rawValue)
        stream.key("until")
        if let until = access.until { stream.date(until) } else { stream.null() }
        stream.key("detail")
        stream.string(access.explanation)
        stream.key("time")
        stream.date(time)
        stream.key("decidedBy")
        stream.openArray()
        for path in access.decidedBy {
            stream.element()
            stream.string(path)
        }
        stream.closeArray()
        stream.closeObject()
    }

    /// The same object as a value of a record built whole (`OrderedJSON`).
    static func value(_ access: Entitlement.Access, time: Date) -> OrderedJSON {
        var stream = JSONStream(pretty: false)
        write(access, time: time, into: &stream)
        return .raw(stream.bytes)
    }
}
