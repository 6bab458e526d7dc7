extension MintPayloads {
    /// `--set PATH=VALUE`: PATH dotted (`price`, `data.status`), VALUE parsed as JSON when it is JSON
    /// (`9990`, `true`, `"x"`, `{"a":1}`, `null`), else taken as the string it is. Missing intermediate
    /// objects are created; an existing member is replaced in place, a new one added at the end.
    /// Nested prefixes (`transaction.…`) are the caller's to route. PATH is bounded as templates
    /// are: at most `MintJSONParser.maximumDepth` levels and `maximumPathLength` bytes. The
    /// caller names the assignment in its messages; these say what is wrong with it.
    public static func set(_ assignment: String, in object: inout MintObject) throws(MintError) {
        guard let equals = assignment.firstIndex(of: "=") else { throw MintError("expected PATH=VALUE") }
        let pathText = assignment[..<equals]
        let levels = pathText.utf8.count { $0 == UInt8(ascii: ".") } + 1
        guard levels <= MintJSONParser.maximumDepth else {
            throw MintError(
                "the path has \(levels) levels, over the \(MintJSONParser.maximumDepth) a payload may nest (as in "
                    + "templates)")
        }
        guard pathText.utf8.count <= maximumPathLength else {
            throw MintError("the path is \(pathText.utf8.count) bytes, over the \(maximumPathLength) allowed")
        }
        let path = pathText.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.contains(where: \.isEmpty) else { throw MintError("the path has an empty member name") }
        let text = Array(assignment.utf8[assignment.utf8.index(after: equals)...])
        let value = (try? MintJSONParser.parse(text)) ?? .string(String(decoding: text, as: UTF8.self))
        try assign(value, at: path[...], in: &object, whole: path)
    }

    /// The longest `--set` PATH, in bytes: 64 levels of 64-byte names.
    public static let maximumPathLength = 4096

    private static func assign(
        _ value: MintValue, at path: ArraySlice<String>, in object: inout MintObject, whole: [String]
    ) throws(MintError) {
        guard let key = path.first else { return }
        if path.count == 1 {
            object[key] = value
            return
        }
        var inner: MintObject
        switch object[key] {
        case nil: inner = MintObject()
        case .object(let existing)?: inner = existing
        case let other?:
            let name = whole[..<(whole.count - path.count + 1)].joined(separator: ".")
            throw MintError("cannot set \(whole.joined(separator: ".")): \(name) is \(other.kindName), not an object")
        }
        try assign(value, at: path.dropFirst(), in: &inner, whole: whole)
        object[key] = .object(inner)
    }

    /// `--from TEMPLATE.json`: the template's members replace the payload's (in place) or are added
    /// (at the end); where both are objects, recursively.
    public static func merge(_ template: MintObject, into object: inout MintObject) {
        for (key, value) in template.members {
            if case .object(let inner)? = object[key], case .object(let innerTemplate) = value {
                var merged = inner
                merge(innerTemplate, into: &merged)
                object[key] = .object(merged)
            } else {
                object[key] = value
            }
        }
    }

    /// Parses a JSON object (a template), keeping its members' order, with a recursive-descent
    /// parser (RFC 8259, strict: no comments, no trailing commas, no duplicate members, UTF-8,
    /// nested at most 64 deep). Integers that fit are `.integer`, other finite numbers `.double`.
    public static func object(json: [UInt8]) throws(MintError) -> MintObject {
        guard case .object(let object) = try MintJSONParser.parse(json) else {
            throw MintError("the template is not a JSON object")
        }
        return object
    }
}

extension MintValue {
    /// "a string", "an integer"…: for messages.
    var kindName: String {
        switch self {
        case .string: "a string"
        case .integer, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension MintObject {
    /// Compact UTF-8 JSON in member order (RFC 8259: strings escaped, no whitespace), the bytes to sign.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        MintValue.object(self).write(to: &out)
        return out
    }
}

extension MintValue {
    func write(to out: inout [UInt8]) {
        switch self {
        case .string(let text): Self.write(text, to: &out)
        case .integer(let number): out += Array(String(number).utf8)
        case .double(let number): out += Array((number.isFinite ? "\(number)" : "null").utf8)
        case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
        case .null: out += Array("null".utf8)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func write(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
