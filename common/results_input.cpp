#include "results_input.hpp"

#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

namespace harness {
namespace {

// A JSON value, as much of JSON as write_json writes: objects, arrays,
// strings, numbers, true, false and null.
struct JsonValue {
    enum class Type { null, boolean, number, string, array, object };
    Type                             type    = Type::null;
    bool                             boolean = false;
    double                           number  = 0.0;
    std::string                      text;
    std::vector<JsonValue>           items;
    std::map<std::string, JsonValue> fields;
};

class JsonParser {
public:
    explicit JsonParser(std::string text) : text_(std::move(text)) {}

    JsonValue parse_document() {
        JsonValue value = parse_value();
        skip_space();
        if (at_ < text_.size()) {
            fail("text after the end of the document");
        }
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw ResultsFormatError("not the report's JSON: " + what + " at byte " + std::to_string(at_));
    }
    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' ||
                                      text_[at_] == '\t')) {
            ++at_;
        }
    }
    bool take(const char c) {
        skip_space();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    void expect(const char c) {
        if (!take(c)) {
            fail(std::string("expected '") + c + "'");
        }
    }
    bool take_word(const std::string& word) {
        if (text_.compare(at_, word.size(), word) == 0) {
            at_ += word.size();
            return true;
        }
        return false;
    }

    JsonValue parse_value() {
        skip_space();
        if (at_ >= text_.size()) {
            fail("unexpected end");
        }
        JsonValue value;
        const char c = text_[at_];
        if (c == '{') {
            ++at_;
            value.type = JsonValue::Type::object;
            if (!take('}')) {
                do {
                    skip_space();
                    const std::string name = parse_string();
                    expect(':');
                    value.fields[name] = parse_value();
                } while (take(','));
                expect('}');
            }
        } else if (c == '[') {
            ++at_;
            value.type = JsonValue::Type::array;
            if (!take(']')) {
                do {
                    value.items.push_back(parse_value());
                } while (take(','));
                expect(']');
            }
        } else if (c == '"') {
            value.type = JsonValue::Type::string;
            value.text = parse_string();
        } else if (take_word("true")) {
            value.type    = JsonValue::Type::boolean;
            value.boolean = true;
        } else if (take_word("false")) {
            value.type = JsonValue::Type::boolean;
        } else if (take_word("null")) {
            value.type = JsonValue::Type::null;
        } else {
            const char* const begin = text_.c_str() + at_;
            char*             end   = nullptr;
            value.type   = JsonValue::Type::number;
            value.number = std::strtod(begin, &end);
            if (end == begin) {
                fail("expected a value");
            }
            at_ += static_cast<size_t>(end - begin);
        }
        return value;
    }

    std::string parse_string() {
        if (at_ >= text_.size() || text_[at_] != '"') {
            fail("expected a string");
        }
        ++at_;
        std::string out;
        while (at_ < text_.size() && text_[at_] != '"') {
            char c = text_[at_++];
            if (c == '\\') {
                if (at_ >= text_.size()) {
                    break;
                }
                const char escaped = text_[at_++];
                switch (escaped) {
                    case 'n': c = '\n'; break;
                    case 'r': c = '\r'; break;
                    case 't': c = '\t'; break;
                    case 'u': {
                        // write_json escapes only control characters this way.
                        if (at_ + 4 > text_.size()) {
                            fail("a short \\u escape");
                        }
                        c = static_cast<char>(std::strtol(text_.substr(at_, 4).c_str(), nullptr, 16));
                        at_ += 4;
                        break;
                    }
                    default: c = escaped;
                }
            }
            out += c;
        }
        if (at_ >= text_.size()) {
            fail("a string without its closing quote");
        }
        ++at_;
        return out;
    }

    std::string text_;
    size_t      at_ = 0;
};

// Field access that names the field when it is missing or of the wrong type.
const JsonValue& field(const JsonValue& object, const std::string& name) {
    const auto found = object.fields.find(name);
    if (object.type != JsonValue::Type::object || found == object.fields.end()) {
        throw ResultsFormatError("not the report's JSON: no field \"" + name + "\"");
    }
    return found->second;
}

const JsonValue& typed(const JsonValue& object, const std::string& name, const JsonValue::Type type) {
    const JsonValue& value = field(object, name);
    if (value.type != type) {
        throw ResultsFormatError("not the report's JSON: field \"" + name + "\" has the wrong type");
    }
    return value;
}

std::string string_of(const JsonValue& object, const std::string& name) {
    return typed(object, name, JsonValue::Type::string).text;
}

double number_of(const JsonValue& object, const std::string& name) {
    return typed(object, name, JsonValue::Type::number).number;
}

int int_of(const JsonValue& object, const std::string& name) {
    return static_cast<int>(number_of(object, name));
}

std::optional<double> optional_number_of(const JsonValue& object, const std::string& name) {
    const JsonValue& value = field(object, name);
    if (value.type == JsonValue::Type::null) {
        return std::nullopt;
    }
    return number_of(object, name);
}

const std::vector<JsonValue>& array_of(const JsonValue& object, const std::string& name) {
    return typed(object, name, JsonValue::Type::array).items;
}

// The enum value whose key (mode_key, kind_key, status_key) is `key`.
template <typename Enum>
Enum from_key(const std::string& key, const std::initializer_list<Enum> values, const char* (*key_of)(Enum),
              const char* what) {
    for (const Enum value : values) {
        if (key == key_of(value)) {
            return value;
        }
    }
    throw ResultsFormatError(std::string("not the report's JSON: unknown ") + what + " \"" + key + "\"");
}

TimingMode mode_of(const std::string& key) {
    return from_key(key, {TimingMode::back_to_back, TimingMode::graph_replay}, mode_key, "timing mode");
}

RowKind kind_of(const std::string& key) {
    return from_key(key, {RowKind::step, RowKind::cublas, RowKind::empty_kernel}, kind_key, "row kind");
}

RowStatus status_of(const std::string& key) {
    return from_key(key, {RowStatus::measured, RowStatus::not_applicable, RowStatus::failed}, status_key,
                    "row status");
}

Timing timing_of(const JsonValue& object) {
    Timing t;
    t.median_us           = number_of(object, "us_median");
    t.min_us              = number_of(object, "us_min");
    t.max_us              = number_of(object, "us_max");
    t.samples             = int_of(object, "samples");
    t.launches_per_sample = int_of(object, "launches_per_sample");
    return t;
}

std::optional<KernelResources> resources_of(const JsonValue& value) {
    if (value.type == JsonValue::Type::null) {
        return std::nullopt;
    }
    KernelResources r;
    r.registers_per_thread          = int_of(value, "registers_per_thread");
    r.static_shared_bytes           = int_of(value, "static_shared_bytes");
    r.dynamic_shared_bytes          = int_of(value, "dynamic_shared_bytes");
    r.local_bytes                   = int_of(value, "local_bytes_per_thread");
    r.threads_per_block             = int_of(value, "threads_per_block");
    r.blocks_per_sm                 = int_of(value, "blocks_per_sm");
    r.theoretical_occupancy_percent = number_of(value, "theoretical_occupancy_percent");
    r.grid_blocks                   = static_cast<int64_t>(number_of(value, "grid_blocks"));
    r.sm_count                      = int_of(value, "sm_count");
    return r;
}

}  // namespace

ReportRun read_json(std::istream& in) {
    const JsonValue document = JsonParser(std::string(std::istreambuf_iterator<char>(in), {})).parse_document();
    if (document.type != JsonValue::Type::object || document.fields.count("tool") == 0 ||
        string_of(document, "tool") != "solve_tri_report") {
        throw ResultsFormatError("not the report's JSON: its \"tool\" is not solve_tri_report");
    }
    ReportRun run;
    run.date = string_of(document, "date");

    const JsonValue& environment = typed(document, "environment", JsonValue::Type::object);
    run.gpu                     = string_of(environment, "gpu");
    run.gpu_name                = string_of(environment, "gpu_name");
    run.sm_count                = int_of(environment, "sm_count");
    run.l2_bytes                = static_cast<int64_t>(number_of(environment, "l2_bytes"));
    run.sm_clock_mhz_after_copy = int_of(environment, "sm_clock_mhz_after_copy");
    run.sm_clock_mhz_at_end     = int_of(environment, "sm_clock_mhz_at_end");
    run.build                   = string_of(environment, "build");
    run.seed                    = std::strtoull(string_of(environment, "seed").c_str(), nullptr, 10);
    run.quick                   = typed(environment, "quick", JsonValue::Type::boolean).boolean;
    run.rotation                = string_of(environment, "rotation");
    run.timing_config.samples          = int_of(environment, "samples");
    run.timing_config.sample_target_ms = number_of(environment, "sample_target_ms");
    run.timing_config.warmup_launches  = int_of(environment, "warmup_launches");
    for (const JsonValue& mode : array_of(environment, "modes")) {
        if (mode.type != JsonValue::Type::string) {
            throw ResultsFormatError("not the report's JSON: a mode that is not a string");
        }
        run.modes.push_back(mode_of(mode.text));
    }

    const JsonValue& copy    = typed(document, "copy_bandwidth", JsonValue::Type::object);
    run.copy.bytes_per_copy   = static_cast<size_t>(number_of(copy, "bytes_per_copy"));
    run.copy.timing           = timing_of(copy);
    run.copy.bytes_per_second = number_of(copy, "bytes_per_second");

    for (const JsonValue& shape_value : array_of(document, "shapes")) {
        ShapeResult shape;
        shape.id             = string_of(shape_value, "id");
        shape.title          = string_of(shape_value, "title");
        shape.problem        = Problem::contiguous(int_of(shape_value, "n"), int_of(shape_value, "k"),
                                                   int_of(shape_value, "ne02"), int_of(shape_value, "ne03"));
        shape.rotation_sets  = int_of(shape_value, "rotation_sets");
        shape.rotation_bytes = number_of(shape_value, "rotation_bytes");
        shape.sm_clock_mhz   = int_of(shape_value, "sm_clock_mhz");
        // Files written before the field existed: the rule the report applies
        // to a shape of the reader's own.
        shape.memory_bound = shape_value.fields.count("memory_bound") != 0
                                 ? typed(shape_value, "memory_bound", JsonValue::Type::boolean).boolean
                                 : beyond_l2(shape.problem, run.l2_bytes);
        for (const JsonValue& row_value : array_of(shape_value, "rows")) {
            RowResult row;
            row.name      = string_of(row_value, "name");
            row.kind      = kind_of(string_of(row_value, "kind"));
            row.status    = status_of(string_of(row_value, "status"));
            row.note      = string_of(row_value, "note");
            row.nmse      = optional_number_of(row_value, "nmse");
            row.resources = resources_of(field(row_value, "resources"));
            for (const TimingMode mode : run.modes) {
                const JsonValue& timing = field(row_value, mode_key(mode));
                if (timing.type != JsonValue::Type::null) {
                    row.timing(mode) = timing_of(timing);
                }
            }
            shape.rows.push_back(row);
        }
        run.shapes.push_back(shape);
    }
    return run;
}

}  // namespace harness
