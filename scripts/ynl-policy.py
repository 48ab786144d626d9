#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# ynl-policy.py YNL_GEN OUT SPEC...: the request policy of each attribute set
# of each spec, as the kernel's YNL generator (YNL_GEN, its ynl-gen-c.py) writes
# policy entries, one table per set: ktgen_<set>_spec_policy[], holding the
# attributes some request of the spec carries, with their checks. What no
# request carries is left out: the kernel must refuse it. Then the names of
# each set's attributes, and the operations (KTG_SPEC_OPS: command, name,
# attribute set, the attributes its request carries, do/dump/admin), for
# the fuzzer (tests/vm/nlfuzz.c).
#
# Where the 6.12 generator cannot say what the kernel can, this adds it:
# a binary with both min-len and max-len (NLA_POLICY_RANGE of NLA_BINARY,
# which the generator refuses "not implemented, yet"), the max-len and
# min-len policies of later generators, and NLA_BE16/NLA_BE32 for
# big-endian integers (the generator writes NLA_U16 for them).
#
# The link-data set of the virtual NIC (ktgen_nic.yaml: rtnetlink, no
# operation) is all request but for the attributes LINK_DATA says are
# reported only.
import importlib.util
import os
import sys

LINK_DATA = {('ktgen-nic', 'nic'): {'rx-style'}}	# (family, set): reported only


def load_generator(path):
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location('ynl_gen_c', path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def patch(gen):
    def binary_policy(self, policy):
        lo, hi = self.checks.get('min-len'), self.checks.get('max-len')
        if 'exact-len' in self.checks:
            return f"NLA_POLICY_EXACT_LEN({self.get_limit_str('exact-len')})"
        if lo is not None and hi is not None:
            return (f"NLA_POLICY_RANGE(NLA_BINARY, {self.get_limit_str('min-len')}, "
                    f"{self.get_limit_str('max-len')})")
        if hi is not None:
            return f"NLA_POLICY_MAX_LEN({self.get_limit_str('max-len')})"
        if lo is not None:
            return f"{{ .len = {self.get_limit_str('min-len')}, }}"
        return '{ .type = NLA_BINARY, }'

    scalar_policy = gen.TypeScalar._attr_policy

    def scalar_be_policy(self, policy):
        if self.attr.get('byte-order') == 'big-endian' and self.type in ('u16', 'u32'):
            policy = 'NLA_BE' + self.type[1:]
        return scalar_policy(self, policy)

    gen.TypeBinary._attr_policy = binary_policy
    gen.TypeScalar._attr_policy = scalar_be_policy


def request_attrs(family, set_name, attr_set):
    if set_name in family.root_sets:
        return family.root_sets[set_name]['request']
    if set_name in family.pure_nested_structs:
        if family.pure_nested_structs[set_name].request:
            return {n for n, _ in attr_set.items()}
        return set()
    if (family.name, set_name) in LINK_DATA:
        return {n for n, _ in attr_set.items()} - LINK_DATA[(family.name, set_name)]
    return set()


def policies(gen, cw, family, tables):
    for set_name, attr_set in family.attr_sets.items():
        if attr_set.subset_of:
            continue
        req = request_attrs(family, set_name, attr_set)
        if not req:
            continue
        attrs = [a for n, a in attr_set.items() if n in req]
        for a in attrs:
            if 'full-range' in a.checks:
                sign = '' if a.type[0] == 'u' else '_signed'
                suffix = 'ULL' if a.type[0] == 'u' else 'LL'
                cw.block_start(line=f'static const struct netlink_range_validation{sign} '
                                    f'{gen.c_lower(a.enum_name)}_range =')
                members = [(k, a.get_limit_str(k, suffix=suffix))
                           for k in ('min', 'max') if k in a.checks]
                cw.write_struct_init(members)
                cw.block_end(line=';')
        name = gen.c_lower(f'{family.ident_name}_{set_name}_spec_policy')
        top = attr_set.max_name
        cw.p(f'static const struct nla_policy {name}[{top} + 1] = {{')
        for a in attrs:
            a.attr_policy(cw)
        cw.p('};')
        names = gen.c_lower(f'{family.ident_name}_{set_name}_spec_names')
        cw.p(f'static const char *const {names}[{top} + 1] = {{')
        for _, a in attr_set.items():
            cw.p(f'\t[{a.enum_name}] = "{a.name}",')
        cw.p('};')
        cw.nl()
        tables.append((set_name, name, names, top))


def operations(gen, cw, family, ops):
    for op_name, op in family.ops.items():
        if not op.is_call:
            continue
        req = []
        for mode in ('do', 'dump'):
            if mode in op and 'request' in op[mode]:
                req += [a for a in op[mode]['request']['attributes'] if a not in req]
        aset = family.attr_sets[op['attribute-set']]
        arr = 'NULL'
        if req:
            arr = gen.c_lower(f'{family.ident_name}_{op_name}_spec_request')
            cw.p(f'static const unsigned short {arr}[] = {{')
            for a in req:
                cw.p(f'\t{aset[a].enum_name},')
            cw.p('};')
        flags = ['KTG_SPEC_' + m.upper() for m in ('do', 'dump') if m in op]
        if 'admin-perm' in op.get('flags', []):
            flags.append('KTG_SPEC_ADMIN')
        ops.append((op.enum_name, op_name, op['attribute-set'], arr, len(req),
                    ' | '.join(flags)))


def main():
    ynl_gen, out = sys.argv[1:3]
    gen = load_generator(ynl_gen)
    patch(gen)
    cw = gen.CodeWriter(gen.BaseNlLib(), out)
    names = ', '.join(os.path.basename(p) for p in sys.argv[3:])
    cw.p(f'/* Generated by scripts/ynl-policy.py from {names} (include/uapi/linux) */')
    tables, ops = [], []
    for spec_path in sys.argv[3:]:
        family = gen.Family(spec_path, [])
        policies(gen, cw, family, tables)
        operations(gen, cw, family, ops)
    cw.nl()
    cw.p('#define KTG_SPEC_OPS \\')
    for enum, name, aset, arr, n, flags in ops:
        cw.p(f'\tKTG_SPEC_OP({enum}, "{name}", "{aset}", {arr}, {n}, {flags}) \\')
    cw.p('\t/* end */')
    cw.nl()
    cw.p('#define KTG_SPEC_POLICIES \\')
    for set_name, name, names, top in tables:
        cw.p(f'\tKTG_SPEC_POLICY("{set_name}", {name}, {names}, {top}) \\')
    cw.p('\t/* end */')


if __name__ == '__main__':
    main()
