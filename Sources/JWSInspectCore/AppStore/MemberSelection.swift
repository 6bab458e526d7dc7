internal import FoundationEssentials

// Which members of an App Store payload to decode: the kinds jwsinspect recognises and the
// members its policies read are App Store knowledge, so the selection lives here, not in `JWS/`.

extension JSONValue {
    /// Like `decodeObject(_:)`, but decodes only the members the selection names, and
    /// records the members that recognise the kind as `null` (the whole text is still
    /// parsed, so malformed JSON is still refused).
    ///
    /// - Returns: the members, and the kind when the selection recognises it; nil when the
    ///   text is JSON but not an object.
    static func decodeObject(_ bytes: [UInt8], selection: MemberSelection) throws
        -> (members: [String: JSONValue], kind: PayloadKind?)?
    {
        if let object = FastJSONObject.parse(bytes) { return selection.plan.select(from: object) }
        return try decodeObjectWithFoundation(bytes, selection: selection)
    }

    /// `decodeObject(_:selection:)` by Foundation alone: what `FastJSONObject` declines.
    static func decodeObjectWithFoundation(_ bytes: [UInt8], selection: MemberSelection) throws
        -> (members: [String: JSONValue], kind: PayloadKind?)?
    {
        // The bytes are only read while decoding: no copy into the Data.
        let selected = bytes.withUnsafeBytes { raw -> SelectedMembers? in
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!),
                count: raw.count, deallocator: .none)
            return try? selection.decoder.decode(SelectedMembers.self, from: data, configuration: selection.plan)
        }
        if let selected { return (selected.values, selected.kind) }
        // Not an object, not JSON, or a member of a surprising type: the slow, thorough way.
        guard case .object(let object) = try decode(bytes) else { return nil }
        var values: [String: JSONValue] = [:]
        for key in selection.values { values[key] = object[key] }
        var kind: PayloadKind?
        if selection.plan.recognition {
            kind = PayloadKind.recognise { name in
                guard object[name] != nil else { return false }
                if values[name] == nil { values[name] = JSONValue.null }
                return true
            }
        }
        return (values, kind)
    }
}

/// Only the members a `MemberSelection.Plan` names.
///
/// Each question to Foundation's keyed container costs a hash and a lookup, so the kind is
/// recognised first, members found absent are never asked about twice, and a notification's
/// bodies are asked about only when the payload is (or may be) a notification. The plan comes
/// as the decoding configuration, not in the decoder's user info, which every decode copies.
private struct SelectedMembers: DecodableWithConfiguration {
    let values: [String: JSONValue]
    /// The kind recognised from the members present (nil without recognition).
    let kind: PayloadKind?

    init(from decoder: any Decoder, configuration plan: MemberSelection.Plan) throws {
        let object = try decoder.container(keyedBy: JSONValue.AnyKey.self)
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(8)
        // Presence for recognising the kind, asked in recognition order and only until it is decided.
        var kind = PayloadKind.unknown
        if plan.recognition {
            kind = PayloadKind.recognise { name in
                guard object.contains(JSONValue.AnyKey(stringValue: name)) else { return false }
                values[name] = JSONValue.null
                return true
            }
        }
        for name in plan.values(for: kind) {
            let key = JSONValue.AnyKey(stringValue: name)
            guard object.contains(key) else { continue }
            values[name] = try JSONValue.member(key, of: object)
        }
        self.values = values
        self.kind = plan.recognition ? kind : nil
    }
}

/// Which members of a payload to decode, and whether to note, as `null`, the members that
/// recognise the payload kind (only as many as recognition needs). Built once, reused for
/// every payload, with its own decoder.
final class MemberSelection: Sendable {
    /// What `SelectedMembers` is decoded with.
    final class Plan: Sendable {
        /// Members decoded whatever the kind.
        let values: [String]
        /// Members only a notification has (its bodies): decoded when the payload is
        /// recognised as a notification or not recognised, or always when `notificationValuesAlways`.
        let notificationValues: [String]
        let recognition: Bool
        /// Per recognised kind, the members still to ask about: recognising a kind proves the
        /// single-member alternatives of the kinds before it absent, and a notification's
        /// bodies matter only to notifications.
        private let valuesByKind: [PayloadKind: [String]]

        init(values: [String], notificationValues: [String], notificationValuesAlways: Bool, recognition: Bool) {
            self.values = values
            self.notificationValues = notificationValues
            self.recognition = recognition
            var valuesByKind: [PayloadKind: [String]] = [:]
            for kind in PayloadKind.allCases {
                let bodies = notificationValuesAlways || !recognition || kind == .notification || kind == .unknown
                var asked = bodies ? values + notificationValues : values
                if recognition {
                    let earlier = PayloadKind.recognitionRules.prefix { $0.kind != kind }
                    let absent = Set(earlier.flatMap { $0.alternatives.filter { $0.count == 1 }.flatMap { $0 } })
                    asked.removeAll { absent.contains($0) }
                }
                valuesByKind[kind] = asked
            }
            self.valuesByKind = valuesByKind
        }

        /// What `SelectedMembers` decodes, taken from an object read whole: the same members,
        /// the same kind.
        func select(from object: [String: JSONValue]) -> (members: [String: JSONValue], kind: PayloadKind?) {
            var selected: [String: JSONValue] = [:]
            selected.reserveCapacity(8)
            var kind = PayloadKind.unknown
            if recognition {
                kind = PayloadKind.recognise { name in
                    guard object[name] != nil else { return false }
                    selected[name] = JSONValue.null
                    return true
                }
            }
            for name in values(for: kind) {
                guard let value = object[name] else { continue }
                selected[name] = value
            }
            return (selected, recognition ? kind : nil)
        }

        /// The members to decode once the payload is recognised as `kind`.
        func values(for kind: PayloadKind) -> [String] { valuesByKind[kind] ?? values + notificationValues }
    }

    let plan: Plan
    /// A decoder shared by every payload and thread (JSONDecoder is thread-safe): making one
    /// per payload costs more than deciding a member.
    let decoder = JSONDecoder()

    /// Every member named, in order.
    var values: [String] { plan.values + plan.notificationValues }

    init(values: [String], notificationValues: [String] = [], notificationValuesAlways: Bool = true, recognition: Bool)
    {
        plan = Plan(
            values: values, notificationValues: notificationValues,
            notificationValuesAlways: notificationValuesAlways, recognition: recognition)
    }
}
