"""Fixtures with NUMA trees, devices and network agents:
NUMAAggregateFixture, NUMANetworkFixture, DeepNUMANetworkFixture and
NeutronQoSMultiSegmentFixture (same names and same data as upstream's; see
fixture_api.py for how each write becomes an HTTP request)."""

import os

from fixture_api import APIFixture, new_uuid


class NUMAAggregateFixture(APIFixture):

    def start_fixture(self):
        super(NUMAAggregateFixture, self).start_fixture()
        tb = self.api
        aggA_uuid = new_uuid()
        aggB_uuid = new_uuid()
        aggC_uuid = new_uuid()

        cn1 = tb.create_provider('cn1', aggA_uuid)
        cn2 = tb.create_provider('cn2', aggA_uuid, aggB_uuid)
        ss1 = tb.create_provider('ss1', aggA_uuid)
        ss2 = tb.create_provider('ss2', aggC_uuid)

        numa1_1 = tb.create_provider('numa1_1', aggC_uuid, parent=cn1.uuid)
        numa1_2 = tb.create_provider('numa1_2', parent=cn1.uuid)
        numa2_1 = tb.create_provider('numa2_1', parent=cn2.uuid)
        numa2_2 = tb.create_provider('numa2_2', parent=cn2.uuid)

        os.environ['AGGA_UUID'] = aggA_uuid
        os.environ['AGGB_UUID'] = aggB_uuid
        os.environ['AGGC_UUID'] = aggC_uuid
        os.environ['CN1_UUID'] = cn1.uuid
        os.environ['CN2_UUID'] = cn2.uuid
        os.environ['SS1_UUID'] = ss1.uuid
        os.environ['SS2_UUID'] = ss2.uuid
        os.environ['NUMA1_1_UUID'] = numa1_1.uuid
        os.environ['NUMA1_2_UUID'] = numa1_2.uuid
        os.environ['NUMA2_1_UUID'] = numa2_1.uuid
        os.environ['NUMA2_2_UUID'] = numa2_2.uuid

        for numa in (numa1_1, numa1_2, numa2_1, numa2_2):
            tb.add_inventory(numa, 'VCPU', 24, allocation_ratio=16.0)

        for ss in (ss1, ss2):
            tb.add_inventory(ss, 'DISK_GB', 2000,
                             reserved=100, allocation_ratio=1.0)
            tb.set_traits(ss, 'MISC_SHARES_VIA_AGGREGATE')


class NUMANetworkFixture(APIFixture):

    cn1 = None
    cn2 = None

    def start_fixture(self):
        super(NUMANetworkFixture, self).start_fixture()
        self.make_entities()

    def make_entities(self):
        tb = self.api
        aggA_uuid = new_uuid()
        os.environ['AGGA_UUID'] = aggA_uuid

        ss1 = tb.create_provider('ss1', aggA_uuid)
        tb.set_traits(ss1, 'MISC_SHARES_VIA_AGGREGATE')
        tb.add_inventory(ss1, 'DISK_GB', 2000)
        os.environ['SS1_UUID'] = ss1.uuid

        # CN1
        if not self.cn1:
            self.cn1 = tb.create_provider('cn1', aggA_uuid)
        tb.set_aggregates(self.cn1, [aggA_uuid])
        tb.set_traits(self.cn1, 'COMPUTE_VOLUME_MULTI_ATTACH')
        os.environ['CN1_UUID'] = self.cn1.uuid

        numas = []
        for i in (0, 1):
            numa = tb.create_provider('numa%d' % i, parent=self.cn1.uuid)
            traits = ['HW_NUMA_ROOT']
            if i == 1:
                traits.append('CUSTOM_FOO')
            tb.set_traits(numa, *traits)
            tb.add_inventory(numa, 'VCPU', 4)
            numas.append(numa)
            os.environ['NUMA%d_UUID' % i] = numa.uuid
        tb.add_inventory(
            numas[0], 'MEMORY_MB', 2048, min_unit=512, step_size=256)
        tb.add_inventory(
            numas[1], 'MEMORY_MB', 2048, min_unit=256, max_unit=1024)
        # tb.create_user_and_project(prefix='numafx')
        user, proj = 'numafx-user', 'numafx-project'
        consumer = tb.ensure_consumer(user, proj)
        tb.set_allocation(numas[0], consumer, {'VCPU': 2})

        fpga = tb.create_provider('fpga0', parent=numas[0].uuid)
        tb.add_inventory(fpga, 'FPGA', 1)
        os.environ['FPGA0_UUID'] = fpga.uuid

        pgpu = tb.create_provider('pgpu0', parent=numas[0].uuid)
        tb.add_inventory(pgpu, 'VGPU', 8)
        os.environ['PGPU0_UUID'] = pgpu.uuid

        for i in (0, 1):
            fpga = tb.create_provider('fpga1_%d' % i, parent=numas[1].uuid)
            tb.add_inventory(fpga, 'FPGA', 1)
            os.environ['FPGA1_%d_UUID' % i] = fpga.uuid

        agent = tb.create_provider('sriov_agent', parent=self.cn1.uuid)
        tb.set_traits(agent, 'CUSTOM_VNIC_TYPE_DIRECT')
        os.environ['SRIOV_AGENT_UUID'] = agent.uuid

        for i in (1, 2):
            dev = tb.create_provider('esn%d' % i, parent=agent.uuid)
            tb.set_traits(dev, 'CUSTOM_PHYSNET%d' % i)
            tb.add_inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000 * i)
            os.environ['ESN%d_UUID' % i] = dev.uuid

        agent = tb.create_provider('ovs_agent', parent=self.cn1.uuid)
        tb.set_traits(agent, 'CUSTOM_VNIC_TYPE_NORMAL')
        os.environ['OVS_AGENT_UUID'] = agent.uuid

        dev = tb.create_provider('br_int', parent=agent.uuid)
        tb.set_traits(dev, 'CUSTOM_PHYSNET0')
        tb.add_inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        os.environ['BR_INT_UUID'] = dev.uuid

        # CN2
        if not self.cn2:
            self.cn2 = tb.create_provider('cn2')

        tb.set_aggregates(self.cn2, [aggA_uuid])
        tb.add_inventory(self.cn2, 'VCPU', 8)
        consumer = tb.ensure_consumer(user, proj)
        tb.set_allocation(self.cn2, consumer, {'VCPU': 3})
        tb.add_inventory(
            self.cn2, 'MEMORY_MB', 2048, min_unit=1024, step_size=128)
        tb.add_inventory(self.cn2, 'DISK_GB', 1000)
        tb.set_traits(self.cn2, 'CUSTOM_FOO')
        os.environ['CN2_UUID'] = self.cn2.uuid

        nics = []
        for i in (1, 2, 3):
            nic = tb.create_provider('nic%d' % i, parent=self.cn2.uuid)
            tb.set_traits(nic, 'CUSTOM_HW_NIC_ROOT')
            nics.append(nic)
            os.environ['NIC%s_UUID' % i] = nic.uuid
        for i in (1, 2):
            suf = '1_%d' % i
            pf = tb.create_provider('pf%s' % suf, parent=nics[0].uuid)
            tb.set_traits(pf, 'CUSTOM_PHYSNET%d' % i)
            tb.add_inventory(pf, 'CUSTOM_VF', 4)
            os.environ['PF%s_UUID' % suf] = pf.uuid
        for i in (0, 1, 2, 3):
            suf = '2_%d' % (i + 1)
            pf = tb.create_provider('pf%s' % suf, parent=nics[1].uuid)
            tb.set_traits(pf, 'CUSTOM_PHYSNET%d' % ((i % 2) + 1))
            tb.add_inventory(pf, 'CUSTOM_VF', 2)
            os.environ['PF%s_UUID' % suf] = pf.uuid
        suf = '3_1'
        pf = tb.create_provider('pf%s' % suf, parent=nics[2].uuid)
        tb.set_traits(pf, 'CUSTOM_PHYSNET1')
        tb.add_inventory(pf, 'CUSTOM_VF', 8)
        os.environ['PF%s_UUID' % suf] = pf.uuid


class DeepNUMANetworkFixture(NUMANetworkFixture):

    def make_entities(self):
        tb = self.api
        grandparent1 = tb.create_provider('gp1')
        parent1 = tb.create_provider('p1', parent=grandparent1.uuid)
        parent2 = tb.create_provider('p2', parent=grandparent1.uuid)
        self.cn1 = tb.create_provider('cn1', parent=parent1.uuid)
        self.cn2 = tb.create_provider('cn2', parent=parent2.uuid)
        super(DeepNUMANetworkFixture, self).make_entities()


class NeutronQoSMultiSegmentFixture(APIFixture):

    def start_fixture(self):
        super(NeutronQoSMultiSegmentFixture, self).start_fixture()
        tb = self.api
        direct = ('CUSTOM_VNIC_TYPE_DIRECT',
                  'CUSTOM_VNIC_TYPE_DIRECT_PHYSICAL',
                  'CUSTOM_VNIC_TYPE_MACVTAP')

        # compute0..2 have the same shape and upstream builds them with the
        # same call sequence; only the physnet trait differs.
        for idx, physnet in ((0, 'CUSTOM_PHYSNET_OTHER'),
                             (1, 'CUSTOM_PHYSNET_MSN_S1'),
                             (2, 'CUSTOM_PHYSNET_MSN_S2')):
            name = 'compute%d' % idx
            compute = tb.create_provider(name)
            os.environ[name] = compute.uuid
            tb.add_inventory(compute, 'VCPU', 8)
            tb.add_inventory(compute, 'MEMORY_MB', 4096)
            tb.add_inventory(compute, 'DISK_GB', 500)

            ovs = tb.create_provider('%s:Open vSwitch agent' % name,
                                     parent=compute.uuid)
            os.environ['%s:ovs_agent' % name] = ovs.uuid
            tb.add_inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
            tb.set_traits(ovs, 'CUSTOM_VNIC_TYPE_NORMAL')

            br_ex = tb.create_provider('%s:Open vSwitch agent:br-ex' % name,
                                       parent=ovs.uuid)
            os.environ['%s:br_ex' % name] = br_ex.uuid
            tb.add_inventory(br_ex, 'NET_BW_EGR_KILOBIT_PER_SEC', 5000)
            tb.add_inventory(br_ex, 'NET_BW_IGR_KILOBIT_PER_SEC', 5000)
            tb.set_traits(br_ex, 'CUSTOM_VNIC_TYPE_NORMAL', physnet)

            sriov = tb.create_provider('%s:NIC Switch agent' % name,
                                       parent=compute.uuid)
            os.environ['%s:sriov_agent' % name] = sriov.uuid
            tb.set_traits(sriov, *direct)

            pf0 = tb.create_provider(
                '%s:NIC Switch agent:enp129s0f0' % name, parent=sriov.uuid)
            os.environ['%s:pf0' % name] = pf0.uuid
            tb.add_inventory(pf0, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000)
            tb.add_inventory(pf0, 'NET_BW_IGR_KILOBIT_PER_SEC', 10000)
            tb.set_traits(pf0, *(direct + (physnet,)))
            if idx == 2:
                compute2_sriov_uuid = sriov.uuid

        # compute 3 with network connectivity to both segment 1 and 2
        compute3 = tb.create_provider('compute3')
        os.environ['compute3'] = compute3.uuid
        tb.add_inventory(compute3, 'VCPU', 8)
        tb.add_inventory(compute3, 'MEMORY_MB', 4096)
        tb.add_inventory(compute3, 'DISK_GB', 500)

        ovs = tb.create_provider('compute3:Open vSwitch agent',
                                 parent=compute3.uuid)
        os.environ['compute3:ovs_agent'] = ovs.uuid
        tb.add_inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
        tb.set_traits(ovs, 'CUSTOM_VNIC_TYPE_NORMAL')

        br_ex = tb.create_provider('compute3:Open vSwitch agent:br-ex',
                                   parent=ovs.uuid)
        os.environ['compute3:br_ex'] = br_ex.uuid
        tb.add_inventory(br_ex, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        tb.add_inventory(br_ex, 'NET_BW_IGR_KILOBIT_PER_SEC', 1000)
        tb.set_traits(br_ex, 'CUSTOM_VNIC_TYPE_NORMAL',
                      'CUSTOM_PHYSNET_MSN_S1')

        br_ex2 = tb.create_provider('compute3:Open vSwitch agent:br-ex2',
                                    parent=ovs.uuid)
        os.environ['compute3:br_ex2'] = br_ex2.uuid
        tb.add_inventory(br_ex2, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        tb.add_inventory(br_ex2, 'NET_BW_IGR_KILOBIT_PER_SEC', 1000)
        tb.set_traits(br_ex2, 'CUSTOM_VNIC_TYPE_NORMAL',
                      'CUSTOM_PHYSNET_MSN_S2')

        sriov = tb.create_provider('compute3:NIC Switch agent',
                                   parent=compute3.uuid)
        # NOTE: upstream deliberately(?) exports compute2's sriov agent here.
        os.environ['compute3:sriov_agent'] = compute2_sriov_uuid
        tb.set_traits(sriov, *direct)

        pf0 = tb.create_provider('compute3:NIC Switch agent:enp129s0f0',
                                 parent=sriov.uuid)
        os.environ['compute3:pf0'] = pf0.uuid
        tb.add_inventory(pf0, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        tb.add_inventory(pf0, 'NET_BW_IGR_KILOBIT_PER_SEC', 1000)
        tb.set_traits(pf0, *(direct + ('CUSTOM_PHYSNET_MSN_S1',)))

        pf1 = tb.create_provider('compute3:NIC Switch agent:enp129s0f1',
                                 parent=sriov.uuid)
        os.environ['compute3:pf1'] = pf1.uuid
        tb.add_inventory(pf1, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        tb.add_inventory(pf1, 'NET_BW_IGR_KILOBIT_PER_SEC', 1000)
        tb.set_traits(pf1, *(direct + ('CUSTOM_PHYSNET_MSN_S2',)))
